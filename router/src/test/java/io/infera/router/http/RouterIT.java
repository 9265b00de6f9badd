package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.json.Json;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.WorkerId;
import io.infera.router.tokenize.ChatInput;
import io.infera.router.tokenize.TestTokenizers;
import io.vertx.core.Vertx;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/** The router over real HTTP in front of stub engines: paths, errors, retries, bookings. */
class RouterIT {

  static Vertx vertx;
  StubEngine a;
  StubEngine b;
  RouterHarness router;

  @BeforeAll
  static void vertx() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void closeVertx() {
    vertx.close();
  }

  @BeforeEach
  void start() throws Exception {
    a = new StubEngine(vertx, "a");
    b = new StubEngine(vertx, "b");
    router =
        RouterHarness.start(
            vertx,
            List.of(a, b),
            "limits: {maxBodyBytes: 65536, retries: 1, firstByteTimeoutMs: 1500, breakerFailures: 3, breakerCooldownMs: 300}\n");
    await().atMost(Duration.ofSeconds(10)).until(() -> router.get("/ready").statusCode() == 200);
  }

  @AfterEach
  void stop() throws Exception {
    router.close();
    a.close();
    b.close();
  }

  private static String chat(String content, boolean stream) {
    return "{\"model\":\"Qwen/Qwen3-0.6B\",\"stream\":"
        + stream
        + ",\"messages\":[{\"role\":\"user\",\"content\":"
        + Json.write(content)
        + "}]}";
  }

  private void assertBookingsReturnToZero() {
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> router.inFlight() == 0 && router.activeBlocks() == 0);
  }

  @Test
  void chatIsProxiedUnchangedWithRoutingHeaders() throws Exception {
    HttpResponse<String> r =
        router.post("/v1/chat/completions", chat("hello", false), "x-request-id", "req-42");
    assertThat(r.statusCode()).isEqualTo(200);
    String worker = r.headers().firstValue("x-infera-worker").orElseThrow();
    assertThat(r.body()).isEqualTo(StubEngine.chatJson(worker));
    assertThat(r.headers().firstValue("x-request-id")).hasValue("req-42");
    assertThat(r.headers().firstValue("x-infera-cache-hit-blocks")).hasValue("0");
    StubEngine hit = worker.equals("a") ? a : b;
    assertThat(hit.seen()).hasSize(1);
    assertThat(hit.seen().get(0).body()).isEqualTo(chat("hello", false));
    assertThat(hit.seen().get(0).headers()).containsEntry("x-request-id", "req-42");
    assertBookingsReturnToZero();
  }

  @Test
  void streamingIsPassedThroughByteForByte() throws Exception {
    HttpResponse<String> r = router.post("/v1/chat/completions", chat("stream me", true));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
    String worker = r.headers().firstValue("x-infera-worker").orElseThrow();
    assertThat(r.body()).isEqualTo(StubEngine.sse(worker));
    assertBookingsReturnToZero();
  }

  @Test
  void completionsWorkWithTextTokensAndBatches() throws Exception {
    assertThat(router.post("/v1/completions", "{\"prompt\":\"Once upon a time\"}").statusCode())
        .isEqualTo(200);
    assertThat(router.post("/v1/completions", "{\"prompt\":[1,2,3,4]}").statusCode())
        .isEqualTo(200);
    assertThat(router.post("/v1/completions", "{\"prompt\":[\"a\",\"b\"]}").statusCode())
        .isEqualTo(200);
    assertBookingsReturnToZero();
  }

  @Test
  void clientErrorsAreOpenAiShaped() throws Exception {
    HttpResponse<String> malformed = router.post("/v1/chat/completions", "{\"messages\": [");
    assertThat(malformed.statusCode()).isEqualTo(400);
    assertThat(malformed.body())
        .contains("\"type\":\"invalid_request_error\"")
        .contains("not valid JSON");
    HttpResponse<String> missing =
        router.post("/v1/chat/completions", "{\"model\":\"Qwen/Qwen3-0.6B\"}");
    assertThat(missing.statusCode()).isEqualTo(400);
    assertThat(missing.body()).contains("\"param\":\"messages\"");
    HttpResponse<String> noPrompt = router.post("/v1/completions", "{}");
    assertThat(noPrompt.statusCode()).isEqualTo(400);
    HttpResponse<String> unknown =
        router.post(
            "/v1/chat/completions",
            "{\"model\":\"gpt-9\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.body()).contains("model_not_found").contains("gpt-9");
    HttpResponse<String> big = router.post("/v1/chat/completions", chat("x".repeat(70_000), false));
    assertThat(big.statusCode()).isEqualTo(413);
    assertThat(big.body()).contains("request_too_large");
    HttpResponse<String> path = router.get("/v1/nothing");
    assertThat(path.statusCode()).isEqualTo(404);
    assertThat(Json.parse(path.body())).isInstanceOf(Map.class);
    assertThat(a.seen()).isEmpty();
    assertThat(b.seen()).isEmpty();
  }

  @Test
  void aLoraAdapterIsAServedModel() throws Exception {
    HttpResponse<String> r =
        router.post(
            "/v1/chat/completions",
            "{\"model\":\"sql-lora\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(router.get("/v1/models").body())
        .contains("\"id\":\"sql-lora\"")
        .contains("\"id\":\"Qwen/Qwen3-0.6B\"");
  }

  @Test
  void failureBeforeTheFirstByteIsRetriedOnAnotherWorker() throws Exception {
    for (StubEngine.Mode mode :
        List.of(
            StubEngine.Mode.STATUS_500,
            StubEngine.Mode.CLOSE_BEFORE_RESPONSE,
            StubEngine.Mode.STATUS_503)) {
      a.mode(mode);
      b.mode(StubEngine.Mode.OK);
      for (int i = 0; i < 4; i++) {
        HttpResponse<String> r =
            router.post("/v1/chat/completions", chat("retry " + mode + i, false));
        assertThat(r.statusCode()).as(mode.name()).isEqualTo(200);
        assertThat(r.headers().firstValue("x-infera-worker")).hasValue("b");
      }
      assertBookingsReturnToZero();
    }
  }

  @Test
  void whenEveryWorkerFailsTheClientGets502() throws Exception {
    a.mode(StubEngine.Mode.STATUS_500);
    b.mode(StubEngine.Mode.CLOSE_BEFORE_RESPONSE);
    HttpResponse<String> r = router.post("/v1/chat/completions", chat("doomed", false));
    assertThat(r.statusCode()).isEqualTo(502);
    assertThat(r.body()).contains("\"type\":\"upstream_error\"");
    assertBookingsReturnToZero();
  }

  @Test
  void aHangingWorkerTimesOutAndTheRequestMovesOn() throws Exception {
    a.mode(StubEngine.Mode.HANG);
    b.mode(StubEngine.Mode.HANG);
    HttpResponse<String> r = router.post("/v1/chat/completions", chat("hang", false));
    assertThat(r.statusCode()).isEqualTo(504);
    assertBookingsReturnToZero();
  }

  @Test
  void aFailureAfterTheFirstByteIsReportedNotRetried() throws Exception {
    a.mode(StubEngine.Mode.BREAK_AFTER_FIRST_BYTES);
    b.mode(StubEngine.Mode.BREAK_AFTER_FIRST_BYTES);
    HttpResponse<String> r = router.post("/v1/chat/completions", chat("break", true));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("broke the stream");
    assertThat(a.seen().size() + b.seen().size()).isEqualTo(1);
    assertBookingsReturnToZero();
  }

  @Test
  void clientErrorsFromTheWorkerArePassedThroughAndNeverOpenTheBreaker() throws Exception {
    a.mode(StubEngine.Mode.STATUS_429);
    b.mode(StubEngine.Mode.STATUS_429);
    for (int i = 0; i < 5; i++) {
      HttpResponse<String> r = router.post("/v1/chat/completions", chat("limited " + i, false));
      assertThat(r.statusCode()).isEqualTo(429);
    }
    assertThat(router.adminGet("/v1/workers").body()).doesNotContain("\"breaker\":\"open\"");
    assertBookingsReturnToZero();
  }

  @Test
  void aClientThatDisconnectsCancelsTheUpstreamAndReleasesItsBooking() throws Exception {
    a.mode(StubEngine.Mode.SLOW_STREAM);
    b.mode(StubEngine.Mode.SLOW_STREAM);
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(router.url("/v1/chat/completions")))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(chat("slow", true)))
            .build();
    HttpResponse<InputStream> r = router.http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.statusCode()).isEqualTo(200);
    byte[] first = new byte[16];
    assertThat(r.body().read(first)).isPositive();
    assertThat(router.inFlight()).isEqualTo(1);
    r.body().close();
    await().atMost(Duration.ofSeconds(10)).until(() -> a.cancelled() + b.cancelled() == 1);
    assertBookingsReturnToZero();
  }

  @Test
  void repeatedFaultsOpenTheBreakerAndAProbeClosesItAgain() throws Exception {
    a.mode(StubEngine.Mode.STATUS_500);
    for (int i = 0; i < 6; i++) {
      router.post("/v1/chat/completions", chat("trip " + i, false));
    }
    await()
        .atMost(Duration.ofSeconds(2))
        .until(() -> router.adminGet("/v1/workers").body().contains("\"breaker\":\"open\""));
    a.mode(StubEngine.Mode.OK);
    // After the cooldown the half-open probe succeeds and the breaker closes.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              router.post("/v1/chat/completions", chat("probe " + System.nanoTime(), false));
              return !router.adminGet("/v1/workers").body().contains("\"breaker\":\"open\"")
                  && !router.adminGet("/v1/workers").body().contains("\"breaker\":\"half_open\"");
            });
    assertBookingsReturnToZero();
  }

  @Test
  void unhealthyWorkersLeaveRotationAndNoWorkerIs503NamingThePool() throws Exception {
    a.healthy(false);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> router.adminGet("/v1/workers").body().contains("\"healthy\":false"));
    for (int i = 0; i < 3; i++) {
      assertThat(
              router
                  .post("/v1/chat/completions", chat("h" + i, false))
                  .headers()
                  .firstValue("x-infera-worker"))
          .hasValue("b");
    }
    b.healthy(false);
    await().atMost(Duration.ofSeconds(5)).until(() -> router.get("/ready").statusCode() == 503);
    HttpResponse<String> r = router.post("/v1/chat/completions", chat("none", false));
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.body()).contains("no routable worker in pool static").contains("a: unhealthy");
  }

  @Test
  void kvEventsSteerRequestsToTheWorkerCachingThePrefixAndExplainShowsIt() throws Exception {
    String system = "You are a meticulous assistant. ".repeat(30);
    List<Object> msgs =
        List.of(
            Map.of("role", "system", "content", system), Map.of("role", "user", "content", "Q1"));
    int[] ids = TestTokenizers.qwen3().encodeChat(ChatInput.of(new ArrayList<>(msgs))).ids();
    int full = ids.length / 16;
    long[] engineHashes = new long[full];
    for (int i = 0; i < full; i++) {
      engineHashes[i] = 1000 + i;
    }
    publishStored(WorkerId.of("b"), 0, engineHashes, java.util.Arrays.copyOf(ids, full * 16));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                router
                    .adminGet("/v1/admin/cache-view/b")
                    .body()
                    .contains("\"block_count\":" + full));
    String body = "{\"messages\":" + Json.write(msgs) + "}";
    HttpResponse<String> explain = router.adminPost("/v1/admin/explain", body);
    assertThat(explain.statusCode()).isEqualTo(200);
    Map<?, ?> e = (Map<?, ?>) Json.parse(explain.body());
    assertThat(e.get("picked")).isEqualTo("b");
    assertThat(((Number) e.get("request_blocks")).intValue()).isEqualTo(full);
    assertThat(explain.body())
        .contains("\"worker_id\":\"b\",\"role\":\"mixed\",\"cache_hits\":" + full);
    assertThat(router.inFlight()).isZero();
    HttpResponse<String> r = router.post("/v1/chat/completions", body);
    assertThat(r.headers().firstValue("x-infera-worker")).hasValue("b");
    assertThat(r.headers().firstValue("x-infera-cache-hit-blocks"))
        .hasValue(Integer.toString(full));
    assertThat(router.adminGet("/v1/admin/cache-view/nobody").statusCode()).isEqualTo(404);
  }

  @Test
  void adminAndMetricsEndpointsAnswer() throws Exception {
    router.post("/v1/chat/completions", chat("m", false));
    assertThat(router.get("/health").body()).contains("ok");
    assertThat(router.get("/ready").body()).contains("\"ready\":true");
    HttpResponse<String> metrics = router.adminGet("/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body())
        .contains("infera_requests_total")
        .contains("infera_upstream_ttfb_seconds")
        .contains("infera_routing_decision_seconds")
        .contains("infera_tokenize_seconds")
        .contains("infera_worker_active_blocks")
        .contains("infera_worker_indexed_blocks")
        .contains("infera_kv_events_dropped_total")
        .contains("infera_worker_breaker_state");
    Map<?, ?> status = (Map<?, ?>) Json.parse(router.adminGet("/v1/admin/status").body());
    assertThat(status.get("ready")).isEqualTo(true);
    assertThat(status.get("events_transport")).isEqualTo("inproc");
    assertThat((List<?>) status.get("workers")).hasSize(2);
    assertThat(router.adminGet("/v1/workers").body())
        .contains("\"id\":\"a\"")
        .contains("\"id\":\"b\"");
  }

  private void publishStored(WorkerId worker, long seq, long[] hashes, int[] tokens)
      throws Exception {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packMapHeader(3).packString("ts").packDouble(System.currentTimeMillis() / 1000.0);
      p.packString("events").packArrayHeader(1).packMapHeader(8);
      p.packString("type").packString("BlockStored");
      p.packString("block_hashes").packArrayHeader(hashes.length);
      for (long h : hashes) {
        p.packLong(h);
      }
      p.packString("parent_block_hash").packNil();
      p.packString("token_ids").packArrayHeader(tokens.length);
      for (int t : tokens) {
        p.packInt(t);
      }
      p.packString("block_size").packInt(16);
      p.packString("lora_id").packNil();
      p.packString("medium").packString("GPU");
      p.packString("lora_name").packNil();
      p.packString("data_parallel_rank").packInt(0);
      router.bus.publish(
          worker, List.of(new byte[0], KvEventMessage.seqBytes(seq), p.toByteArray()));
    }
    assertThat(BlockHasher.hex(hashes[0])).hasSize(16);
  }
}
