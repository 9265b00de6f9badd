package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.json.Json;
import io.infera.router.kv.WorkerId;
import io.infera.router.parity.ParityStatus;
import io.infera.router.parity.WorkerParity;
import io.infera.router.routing.RequestAnalyzer;
import io.infera.router.routing.RoutingMetrics;
import io.infera.router.tokenize.TestTokenizers;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The prober against hostile and odd {@code /tokenize} servers on loopback: an answer of exactly
 * {@code tokenizer.parity.maxAnswerBytes} is read (match), one byte more fails the probe; a worker
 * that never answers fails it after {@code timeoutMs} while the router keeps routing; 404 is parity
 * unknown; a non-JSON 200 fails it. One worker's trouble never touches another's verdict.
 */
class RenderParityProbeIT {

  private static final String MODEL = "Qwen/Qwen3-0.6B";
  private static final int CAP = 4096;

  private final Vertx vertx = Vertx.vertx();
  private final List<HttpServer> servers = new ArrayList<>();
  private RouterHarness router;

  @AfterEach
  void close() throws Exception {
    if (router != null) {
      router.close();
    }
    for (HttpServer s : servers) {
      s.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  /** A worker whose /tokenize answers with {@code answer}(case name, response); /health is 200. */
  private String worker(BiConsumer<String, HttpServerRequest> answer) throws Exception {
    HttpServer s =
        vertx
            .createHttpServer()
            .requestHandler(
                req -> {
                  if (!req.path().equals("/tokenize")) {
                    req.response().setStatusCode(req.path().equals("/health") ? 200 : 404).end();
                    return;
                  }
                  String id = String.valueOf(req.getHeader("x-request-id"));
                  String name = id.substring(RenderParityProber.REQUEST_ID_PREFIX.length());
                  req.body().onSuccess(b -> answer.accept(name, req));
                });
    servers.add(s);
    int port =
        s.listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(5, TimeUnit.SECONDS)
            .actualPort();
    return "http://127.0.0.1:" + port;
  }

  /** {@code {"tokens":[…]}} padded with spaces inside the object to exactly {@code size} bytes. */
  private static String padded(int[] ids, int size) {
    String head = "{\"tokens\":" + Json.write(ids);
    int pad = size - head.length() - 1;
    assertThat(pad).as("the ids fit the cap").isNotNegative();
    return head + " ".repeat(pad) + "}";
  }

  @Test
  void boundsAndRefusalsEachGiveTheirVerdict() throws Exception {
    String base =
        "model: "
            + MODEL
            + "\ntokenizer: {path: 'builtin:qwen3', parity: {timeoutMs: 2000,"
            + " maxAnswerBytes: "
            + CAP
            + "}}\n"
            + "discovery: {workers: [{id: placeholder, url: 'http://127.0.0.1:1'}]}\n";
    RouterConfig probeCfg = ConfigLoader.parse(base);
    Map<String, int[]> routerIds = new HashMap<>();
    for (RenderParityProber.Local l :
        RenderParityProber.localCases(
            new RequestAnalyzer(probeCfg, TestTokenizers.qwen3(), new RoutingMetrics()),
            TestTokenizers.qwen3(),
            MODEL)) {
      routerIds.put(l.probe().name(), l.ids());
    }
    Map<String, String> urls = new java.util.LinkedHashMap<>();
    urls.put(
        "exact",
        worker(
            (name, req) ->
                req.response()
                    .putHeader("content-type", "application/json")
                    .end(padded(routerIds.get(name), CAP))));
    urls.put(
        "over",
        worker(
            (name, req) ->
                req.response()
                    .putHeader("content-type", "application/json")
                    .end(padded(routerIds.get(name), CAP + 1))));
    urls.put(
        "chunked-over",
        worker(
            (name, req) -> {
              // No content-length: the cap must hold while reading.
              req.response().setChunked(true).write("{\"tokens\":[1");
              for (int i = 0; i < 40; i++) {
                req.response().write(",1".repeat(100));
              }
              req.response().end("]}");
            }));
    urls.put("hang", worker((name, req) -> {}));
    urls.put("missing", worker((name, req) -> req.response().setStatusCode(404).end()));
    urls.put("garbage", worker((name, req) -> req.response().end("<html>not json</html>")));
    StringBuilder yaml =
        new StringBuilder(
            "model: "
                + MODEL
                + "\npageSize: 16\ntokenizer: {path: 'builtin:qwen3', parity: {timeoutMs: 2000,"
                + " maxAnswerBytes: "
                + CAP
                + "}}\nevents: {transport: inproc, inprocBus: 'parity-"
                + System.nanoTime()
                + "'}\nlisten: {host: 127.0.0.1, port: 0}\n"
                + "discovery:\n  backend: static\n  healthIntervalMs: 200\n  workers:\n");
    urls.forEach(
        (id, url) ->
            yaml.append("    - {id: ").append(id).append(", url: '").append(url).append("'}\n"));
    router =
        RouterHarness.start(vertx, ConfigLoader.parse(yaml.toString()), RouterHarness.testParts());

    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> urls.keySet().stream().allMatch(id -> status(id) != ParityStatus.PENDING));
    assertThat(status("exact")).as(parity("exact").detail()).isEqualTo(ParityStatus.MATCH);
    assertThat(parity("over").status()).isEqualTo(ParityStatus.FAILED);
    assertThat(parity("over").detail()).contains("tokenizer.parity.maxAnswerBytes");
    assertThat(parity("chunked-over").detail()).contains("tokenizer.parity.maxAnswerBytes");
    assertThat(parity("hang").status()).isEqualTo(ParityStatus.FAILED);
    assertThat(parity("hang").detail()).contains("tokenizer.parity.timeoutMs");
    assertThat(status("missing")).isEqualTo(ParityStatus.UNSUPPORTED);
    assertThat(parity("garbage").status()).isEqualTo(ParityStatus.FAILED);
    assertThat(parity("garbage").detail()).contains("unreadable /tokenize answer");
    // None of them is distrusted: only a compared divergence changes routing.
    assertThat(router.runtime.renderParity().variants(true)).isEmpty();
    // Routing never waited for any of it.
    assertThat(router.get("/ready").statusCode()).isEqualTo(200);
    String metrics = router.adminGet("/metrics").body();
    assertThat(metrics)
        .contains("infera_render_parity_workers{status=\"failed\"} 4.0")
        .contains("infera_render_parity_probes_total{result=\"match\",trigger=\"discovery\"} 1.0");
  }

  private WorkerParity parity(String id) {
    return router.runtime.renderParity().of(WorkerId.of(id));
  }

  private ParityStatus status(String id) {
    return parity(id).status();
  }
}
