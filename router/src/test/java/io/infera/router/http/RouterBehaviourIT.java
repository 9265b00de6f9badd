package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.infera.router.json.Json;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Shutdown, the approx-prefix policy and engine-side tokenization, over real HTTP. */
class RouterBehaviourIT {

  static Vertx vertx;

  @BeforeAll
  static void vertx() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void close() {
    vertx.close();
  }

  private static String chat(String content, boolean stream) {
    return "{\"stream\":"
        + stream
        + ",\"messages\":[{\"role\":\"user\",\"content\":"
        + Json.write(content)
        + "}]}";
  }

  @Test
  void aPortInUseIsNamedInTheStartError() throws Exception {
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      String yaml =
          RouterHarness.yaml(List.of(), "    - {id: w0, url: 'http://127.0.0.1:9'}\n")
              .replace("port: 0}", "port: " + port + "}");
      var cfg = io.infera.router.config.ConfigLoader.parse(yaml);
      try (var rt = io.infera.router.runtime.RouterRuntime.start(cfg, RouterHarness.testParts())) {
        RouterServer server = new RouterServer(vertx, rt);
        assertThatThrownBy(
                () ->
                    server
                        .start()
                        .toCompletionStage()
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS))
            .hasRootCauseInstanceOf(java.net.BindException.class)
            .cause()
            .hasMessage(
                "port " + port + " on 127.0.0.1 (HTTP, listen.port / --port) is already in use");
        server.close();
      }
    }
  }

  @Test
  void gracefulShutdownLetsInFlightStreamsFinishAndRefusesNewWork() throws Exception {
    StubEngine e = new StubEngine(vertx, "slow");
    e.mode(StubEngine.Mode.SLOW_STREAM);
    RouterHarness r =
        RouterHarness.start(vertx, List.of(e), "limits: {shutdownTimeoutMs: 10000}\n");
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> r.get("/ready").statusCode() == 200);
      HttpRequest req =
          HttpRequest.newBuilder(URI.create(r.url("/v1/chat/completions")))
              .header("content-type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(chat("long answer", true)))
              .build();
      CompletableFuture<HttpResponse<String>> inFlight =
          r.http.sendAsync(req, HttpResponse.BodyHandlers.ofString());
      await().atMost(Duration.ofSeconds(5)).until(() -> r.inFlight() == 1);
      CompletableFuture<Void> shutdown =
          r.server.shutdown().toCompletionStage().toCompletableFuture();
      assertThat(r.runtime.notReadyReasons()).contains("shutting down");
      HttpResponse<String> done = inFlight.get(20, TimeUnit.SECONDS);
      assertThat(done.statusCode()).isEqualTo(200);
      assertThat(done.body()).endsWith("data: [DONE]\n\n").contains("{\"n\":40}");
      shutdown.get(20, TimeUnit.SECONDS);
      assertThatThrownBy(() -> r.post("/v1/chat/completions", chat("late", false)))
          .isInstanceOf(java.io.IOException.class);
      assertThat(r.inFlight()).isZero();
    } finally {
      r.runtime.close();
      e.close();
    }
  }

  @Test
  void approxPrefixLearnsFromItsOwnDecisions() throws Exception {
    StubEngine a = new StubEngine(vertx, "a");
    StubEngine b = new StubEngine(vertx, "b");
    RouterHarness r = RouterHarness.start(vertx, List.of(a, b), "policy: {name: approx-prefix}\n");
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> r.get("/ready").statusCode() == 200);
      String prompt = "A long shared document about routers and caches. ".repeat(40);
      HttpResponse<String> first = r.post("/v1/chat/completions", chat(prompt, false));
      String worker = first.headers().firstValue("x-infera-worker").orElseThrow();
      assertThat(first.headers().firstValue("x-infera-cache-hit-blocks")).hasValue("0");
      HttpResponse<String> second = r.post("/v1/chat/completions", chat(prompt, false));
      assertThat(second.headers().firstValue("x-infera-worker")).hasValue(worker);
      assertThat(
              Integer.parseInt(
                  second.headers().firstValue("x-infera-cache-hit-blocks").orElseThrow()))
          .isGreaterThan(10);
    } finally {
      r.close();
      a.close();
      b.close();
    }
  }

  @Test
  void engineTokenizerModeAsksTheWorkersTokenizeEndpoint() throws Exception {
    StubEngine e = new StubEngine(vertx, "e");
    String yaml =
        RouterHarness.yaml(List.of(e), "")
            .replace("tokenizer: {path: 'builtin:qwen3'}", "tokenizer: {mode: engine}");
    RouterHarness r =
        RouterHarness.start(
            vertx, io.infera.router.config.ConfigLoader.parse(yaml), RouterHarness.testParts());
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> r.get("/ready").statusCode() == 200);
      HttpResponse<String> resp = r.post("/v1/chat/completions", chat("hello", false));
      assertThat(resp.statusCode()).isEqualTo(200);
      assertThat(e.seen())
          .extracting(StubEngine.Seen::path)
          .containsExactly("/tokenize", "/v1/chat/completions");
      Map<?, ?> tokenizeBody = (Map<?, ?>) Json.parse(e.seen().get(0).body());
      assertThat(tokenizeBody.get("add_special_tokens")).isEqualTo(false);
      assertThat(tokenizeBody.get("messages")).isNotNull();
      HttpResponse<String> explain = r.adminPost("/v1/admin/explain", chat("hello", false));
      assertThat(explain.body()).contains("\"request_blocks\":2").contains("\"prompt_tokens\":40");
    } finally {
      r.close();
      e.close();
    }
  }

  @Test
  void aWorkerThatRefusesTheChatFormIsRoutedByLoadCountedAndWarnedOnce() throws Exception {
    // An engine whose /tokenize takes no messages (an older SGLang: prompt required) answers 422.
    StubEngine e = new StubEngine(vertx, "e");
    e.script(
        s ->
            s.path().equals("/tokenize") && s.body().contains("\"messages\"")
                ? StubEngine.Canned.json(
                    422, "{\"detail\":[{\"loc\":[\"body\",\"prompt\"],\"msg\":\"required\"}]}")
                : null);
    String yaml =
        RouterHarness.yaml(List.of(e), "")
            .replace("tokenizer: {path: 'builtin:qwen3'}", "tokenizer: {mode: engine}");
    RouterHarness r =
        RouterHarness.start(
            vertx, io.infera.router.config.ConfigLoader.parse(yaml), RouterHarness.testParts());
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(EngineTokenizer.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logs =
        new ch.qos.logback.core.read.ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> r.get("/ready").statusCode() == 200);
      for (int i = 0; i < 3; i++) {
        HttpResponse<String> resp = r.post("/v1/chat/completions", chat("hello " + i, false));
        assertThat(resp.statusCode()).isEqualTo(200);
        assertThat(resp.headers().firstValue("x-infera-cache-hit-blocks")).hasValue("0");
      }
      assertThat(r.adminGet("/metrics").body())
          .contains("infera_tokenize_failures_total{reason=\"engine_chat\"} 3.0");
      assertThat(logs.list)
          .filteredOn(ev -> ev.getLevel() == ch.qos.logback.classic.Level.WARN)
          .singleElement()
          .satisfies(
              ev ->
                  assertThat(ev.getFormattedMessage())
                      .contains("worker=e")
                      .contains("422")
                      .contains("tokenizer.mode: local"));
      // Completions still tokenize on that worker: the prompt goes as one string.
      HttpResponse<String> explain =
          r.adminPost("/v1/admin/explain", "{\"prompt\":[\"" + "word ".repeat(40) + "\"]}");
      assertThat(explain.body()).contains("\"prompt_tokens\":40");
      StubEngine.Seen last =
          e.seen().stream().filter(x -> x.path().equals("/tokenize")).reduce((a, b) -> b).get();
      assertThat(((Map<?, ?>) Json.parse(last.body())).get("prompt")).isEqualTo("word ".repeat(40));
    } finally {
      logger.detachAppender(logs);
      r.close();
      e.close();
    }
  }

  @Test
  void aTokenizeAnswerPastItsLimitIsAnEngineFailureNotAStall() throws Exception {
    StubEngine e = new StubEngine(vertx, "e");
    int limit = EngineTokenizer.maxAnswerBytes(1024);
    List<String> chunks = new java.util.ArrayList<>();
    chunks.add("{\"tokens\":[");
    String piece = "1,".repeat(32 * 1024);
    for (int sent = 0; sent <= limit; sent += piece.length()) {
      chunks.add(piece);
    }
    chunks.add("1]}");
    e.script(s -> s.path().equals("/tokenize") ? new StubEngine.Canned(200, chunks) : null);
    String yaml =
        RouterHarness.yaml(List.of(e), "limits: {maxBodyBytes: 1024}\n")
            .replace("tokenizer: {path: 'builtin:qwen3'}", "tokenizer: {mode: engine}");
    RouterHarness r =
        RouterHarness.start(
            vertx, io.infera.router.config.ConfigLoader.parse(yaml), RouterHarness.testParts());
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> r.get("/ready").statusCode() == 200);
      HttpResponse<String> resp = r.post("/v1/chat/completions", chat("hello", false));
      assertThat(resp.statusCode()).isEqualTo(200);
      assertThat(r.adminGet("/metrics").body())
          .contains("infera_tokenize_failures_total{reason=\"engine\"} 1.0");
    } finally {
      r.close();
      e.close();
    }
  }
}
