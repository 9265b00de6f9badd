package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The bounded read of answers the router consumes itself (prefill halves, {@code /tokenize}): at
 * the limit read whole, past it refused, however the answer is framed.
 */
class UpstreamReadAtMostIT {

  static final int MAX = 10_000;
  static Vertx vertx;
  static HttpServer server;
  static HttpClient client;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    // GET /<bytes>/<chunked|length>: that many bytes, in 1000-byte chunks or with a length.
    server =
        vertx
            .createHttpServer()
            .requestHandler(
                req -> {
                  String[] p = req.path().substring(1).split("/");
                  int n = Integer.parseInt(p[0]);
                  HttpServerResponse resp = req.response();
                  if (p[1].equals("length")) {
                    resp.end(Buffer.buffer("y".repeat(n)));
                    return;
                  }
                  resp.setChunked(true);
                  for (int sent = 0; sent < n; sent += 1000) {
                    resp.write("y".repeat(Math.min(1000, n - sent)));
                  }
                  resp.end();
                });
    server
        .listen(0, "127.0.0.1")
        .toCompletionStage()
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
    client = vertx.createHttpClient();
  }

  @AfterAll
  static void stop() {
    vertx.close();
  }

  /**
   * Asks on a Vert.x context, as the router does: the answer's callbacks then run as its head
   * arrives, before its body. (Chained from the test thread, a callback may run only after a short
   * answer has ended, and its body is gone.)
   */
  private static Future<Buffer> read(int bytes, String framing) {
    Promise<Buffer> read = Promise.promise();
    vertx.runOnContext(
        v ->
            client
                .request(
                    HttpMethod.GET, server.actualPort(), "127.0.0.1", "/" + bytes + "/" + framing)
                .compose(r -> r.send())
                .compose(resp -> Upstream.readAtMost(resp, MAX))
                .onComplete(read));
    return read.future();
  }

  @ParameterizedTest
  @CsvSource({"0, chunked", "10000, chunked", "9999, length", "10000, length"})
  void atTheLimitTheAnswerIsReadWhole(int bytes, String framing) throws Exception {
    assertThat(
            read(bytes, framing)
                .toCompletionStage()
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS)
                .length())
        .isEqualTo(bytes);
  }

  @ParameterizedTest
  @CsvSource({"10001, chunked", "500000, chunked", "10001, length", "500000, length"})
  void pastTheLimitItIsRefused(int bytes, String framing) throws Exception {
    try {
      read(bytes, framing).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      throw new AssertionError("read " + bytes + " bytes past the limit");
    } catch (ExecutionException e) {
      assertThat(e.getCause())
          .isInstanceOf(Upstream.TooLong.class)
          .hasMessage("answered more than " + MAX + " bytes");
    }
  }
}
