package io.infera.sim.adversarial;

import io.infera.router.json.Json;
import io.infera.sim.engine.SimEngine;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The worker URL the router sees: bodies up to {@link #FORWARD_LIMIT} go to the simulated engine
 * behind it; a larger body is read to its end and answered as vLLM answers a prompt past its
 * context (400, "maximum context length"), without tokenizing it. The simulator tokenizes every
 * prompt in full, so a 24 MB prompt would cost this test JVM minutes and gigabytes; the router's
 * side (forwarding the whole body to a worker picked by load) is what the attack checks, and the
 * front records every large body's size as it arrived.
 */
final class EngineFront implements AutoCloseable {

  /** Bodies larger than this are answered here. */
  static final int FORWARD_LIMIT = 256 * 1024;

  /** The marker of the engine's own context-length answer. */
  static final String CONTEXT_ERROR = "maximum context length";

  private final HttpServer server;
  private final HttpClient client;
  private final ConcurrentLinkedQueue<Long> largeBodies = new ConcurrentLinkedQueue<>();

  private EngineFront(HttpServer server, HttpClient client) {
    this.server = server;
    this.client = client;
  }

  static EngineFront start(Vertx vertx, SimEngine engine) throws Exception {
    HttpClient client =
        vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true));
    EngineFront[] self = new EngineFront[1];
    HttpServer server =
        vertx
            .createHttpServer()
            .requestHandler(req -> self[0].handle(req, engine.port()))
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(30, TimeUnit.SECONDS);
    self[0] = new EngineFront(server, client);
    return self[0];
  }

  String url() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  /** The sizes of the bodies answered here, in arrival order. */
  List<Long> largeBodies() {
    return List.copyOf(largeBodies);
  }

  private void handle(HttpServerRequest req, int enginePort) {
    Buffer body = Buffer.buffer();
    long[] size = {0};
    req.handler(
        chunk -> {
          size[0] += chunk.length();
          if (size[0] <= FORWARD_LIMIT) {
            body.appendBuffer(chunk);
          }
        });
    req.endHandler(
        v -> {
          if (size[0] > FORWARD_LIMIT) {
            largeBodies.add(size[0]);
            Map<String, Object> err = new LinkedHashMap<>();
            err.put("object", "error");
            err.put(
                "message",
                "This model's maximum context length is "
                    + SimEngine.MAX_MODEL_LEN
                    + " tokens. However, you requested more tokens (a body of "
                    + size[0]
                    + " bytes). Please reduce the length of the messages or completion.");
            err.put("type", "BadRequestError");
            err.put("param", null);
            err.put("code", 400);
            req.response()
                .setStatusCode(400)
                .putHeader("content-type", "application/json")
                .end(Json.write(err));
            return;
          }
          RequestOptions o =
              new RequestOptions()
                  .setMethod(req.method())
                  .setHost("127.0.0.1")
                  .setPort(enginePort)
                  .setURI(req.uri());
          req.headers()
              .forEach(
                  h -> {
                    String n = h.getKey().toLowerCase(java.util.Locale.ROOT);
                    if (!n.equals("host")
                        && !n.equals("content-length")
                        && !n.equals("connection")
                        && !n.equals("transfer-encoding")) {
                      o.addHeader(h.getKey(), h.getValue());
                    }
                  });
          client
              .request(o)
              .compose(out -> out.send(body))
              .compose(
                  resp ->
                      resp.body()
                          .map(
                              b -> {
                                req.response().setStatusCode(resp.statusCode());
                                String type = resp.getHeader("content-type");
                                if (type != null) {
                                  req.response().putHeader("content-type", type);
                                }
                                return b;
                              }))
              .onSuccess(b -> req.response().end(b))
              .onFailure(
                  e -> {
                    if (!req.response().ended()) {
                      req.response().setStatusCode(502).end(String.valueOf(e));
                    }
                  });
        });
  }

  @Override
  public void close() {
    try {
      server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      client.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      // closing anyway
    }
  }
}
