package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.config.ConfigLoader;
import io.infera.router.events.FakeVllmPublisher;
import io.infera.router.json.Json;
import io.infera.router.kv.Events;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.WorkerId;
import io.infera.router.tokenize.TestTokenizers;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A disaggregated fleet (prefill and decode pools, no mixed worker): SGLang's hand-over sends the
 * request with the prefill server's bootstrap address and a fresh room to a prefill and a decode
 * worker at once and answers with the decode worker's response; vLLM's prefills one token first and
 * passes its {@code kv_transfer_params} on (or none, when it has none); other engines get a clear
 * 503.
 */
class RouterDisaggregatedIT {

  private static final String BODY =
      "{\"model\":\"Qwen/Qwen3-0.6B\",\"prompt\":\"" + "word ".repeat(80) + "\",\"max_tokens\":4}";

  private Vertx vertx;
  private StubEngine prefill;
  private StubEngine decode;
  private RouterHarness router;

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    prefill = new StubEngine(vertx, "p0");
    decode = new StubEngine(vertx, "d0");
  }

  @AfterEach
  void tearDown() throws Exception {
    if (router != null) {
      router.close();
    }
    prefill.close();
    decode.close();
    vertx.close();
  }

  /** Starts the router on {@code workers}: each "id role engine" with the stub's URL. */
  private void startWith(StubEngine[] stubs, String... workers) throws Exception {
    startWith("{path: 'builtin:qwen3'}", stubs, workers);
  }

  private void startWith(String tokenizer, StubEngine[] stubs, String... workers) throws Exception {
    StringBuilder yaml =
        new StringBuilder("model: Qwen/Qwen3-0.6B\npageSize: 16\ntokenizer: " + tokenizer + "\n")
            .append("events: {transport: inproc, inprocBus: 'pd-")
            .append(System.nanoTime())
            .append("'}\nlisten: {host: 127.0.0.1, port: 0}\n")
            .append("discovery:\n  healthIntervalMs: 200\n  workers:\n");
    for (int i = 0; i < workers.length; i++) {
      String[] w = workers[i].split(" ");
      yaml.append("    - {id: ")
          .append(w[0])
          .append(", url: '")
          .append(stubs[i].url())
          .append("', role: ")
          .append(w[1])
          .append(", engine: ")
          .append(w[2])
          .append("}\n");
    }
    router =
        RouterHarness.start(vertx, ConfigLoader.parse(yaml.toString()), RouterHarness.testParts());
    await().atMost(Duration.ofSeconds(10)).until(() -> router.get("/ready").statusCode() == 200);
  }

  private void start(String engine) throws Exception {
    startWith(new StubEngine[] {prefill, decode}, "p0 prefill " + engine, "d0 decode " + engine);
  }

  @Test
  void sglangPrefillAndDecodeGetTheSameRoomAndTheClientGetsTheDecodeAnswer() throws Exception {
    start("sglang");
    HttpResponse<String> r = router.post("/v1/completions", BODY);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("hello from d0");
    assertThat(r.headers().firstValue("x-infera-worker")).hasValue("d0");
    assertThat(r.headers().firstValue("x-infera-prefill-worker")).hasValue("p0");
    await().atMost(Duration.ofSeconds(5)).until(() -> prefill.seen().size() == 1);
    Map<?, ?> p = (Map<?, ?>) Json.parse(prefill.seen().get(0).body());
    Map<?, ?> d = (Map<?, ?>) Json.parse(decode.seen().get(0).body());
    assertThat(p.get("bootstrap_host")).isEqualTo("127.0.0.1");
    assertThat(p.get("bootstrap_port")).isEqualTo(8998L);
    assertThat(((Number) p.get("bootstrap_room")).longValue()).isNotNegative();
    assertThat(d).isEqualTo(p);
    assertThat(d.get("prompt")).isEqualTo("word ".repeat(80));
    assertThat(d.get("max_tokens")).isEqualTo(4L);
    assertThat(prefill.seen().get(0).path()).isEqualTo("/v1/completions");

    // A second request gets another room; streaming passes the decode worker's SSE through.
    HttpResponse<String> s = router.post("/v1/completions", BODY.replace("}", ",\"stream\":true}"));
    assertThat(s.statusCode()).isEqualTo(200);
    assertThat(s.body()).isEqualTo(StubEngine.sse("d0"));
    await().atMost(Duration.ofSeconds(5)).until(() -> prefill.seen().size() == 2);
    Object room2 = ((Map<?, ?>) Json.parse(decode.seen().get(1).body())).get("bootstrap_room");
    assertThat(room2).isNotEqualTo(p.get("bootstrap_room"));
    // Both bookings were released.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                router
                    .adminGet("/metrics")
                    .body()
                    .contains("infera_worker_inflight{worker=\"p0\"} 0.0"));
    assertThat(router.adminGet("/metrics").body())
        .contains("infera_worker_inflight{worker=\"d0\"} 0.0");
  }

  @Test
  void thePrefillWorkerIsChosenForItsCache() throws Exception {
    StubEngine p1 = new StubEngine(vertx, "p1");
    try {
      startWith(
          new StubEngine[] {prefill, p1, decode},
          "p0 prefill sglang",
          "p1 prefill sglang",
          "d0 decode sglang");
      // p1 caches the prompt's blocks (its KV events say so): the prefill pick goes there.
      String prompt = "word ".repeat(80);
      int[] ids = TestTokenizers.qwen3().encodeText(prompt).ids();
      int blocks = ids.length / 16;
      long[] hashes = new long[blocks];
      for (int i = 0; i < blocks; i++) {
        hashes[i] = 0xABC000L + i;
      }
      KvEvent stored = Events.stored(16, hashes, null, java.util.Arrays.copyOf(ids, blocks * 16));
      router.bus.publish(
          WorkerId.of("p1"),
          List.of(
              new byte[0],
              KvEventMessage.seqBytes(0),
              FakeVllmPublisher.batchPayload(1.0, 0, stored)));
      await()
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  router
                      .adminGet("/v1/admin/cache-view/p1")
                      .body()
                      .contains("\"block_count\":" + blocks));
      HttpResponse<String> r = router.post("/v1/completions", BODY);
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("x-infera-prefill-worker")).hasValue("p1");
      assertThat(r.headers().firstValue("x-infera-cache-hit-blocks"))
          .hasValue(Integer.toString(blocks));
      assertThat(r.headers().firstValue("x-infera-worker")).hasValue("d0");
      assertThat(prefill.seen()).isEmpty();
    } finally {
      p1.close();
    }
  }

  @Test
  void aPrefillAnswerBrokenHalfwayStillReleasesItsBooking() throws Exception {
    start("sglang");
    prefill.mode(StubEngine.Mode.BREAK_AFTER_FIRST_BYTES);
    HttpResponse<String> r = router.post("/v1/completions", BODY);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("hello from d0");
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                router
                    .adminGet("/metrics")
                    .body()
                    .contains("infera_worker_inflight{worker=\"p0\"} 0.0"));
  }

  @Test
  void aFailingPrefillWorkerFailsTheRequestInsteadOfLeavingDecodeWaiting() throws Exception {
    start("sglang");
    prefill.mode(StubEngine.Mode.STATUS_500);
    decode.mode(StubEngine.Mode.HANG); // would wait for KV forever
    HttpResponse<String> r = router.post("/v1/completions", BODY);
    assertThat(r.statusCode()).isEqualTo(502);
    assertThat(r.body()).contains("prefill worker p0 answered 500");
    await().atMost(Duration.ofSeconds(5)).until(() -> decode.cancelled() == 1);
  }

  @Test
  void vllmPrefillAnswersWhereTheKvIsAndDecodeGetsItWithTheOriginalRequest() throws Exception {
    start("vllm");
    String body =
        BODY.replace("}", ",\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
    HttpResponse<String> r = router.post("/v1/completions", body);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(StubEngine.sse("d0"));
    assertThat(r.headers().firstValue("x-infera-worker")).hasValue("d0");
    assertThat(r.headers().firstValue("x-infera-prefill-worker")).hasValue("p0");
    Map<?, ?> p = (Map<?, ?>) Json.parse(prefill.seen().get(0).body());
    assertThat(p.get("max_tokens")).isEqualTo(1L);
    assertThat(p.get("stream")).isEqualTo(false);
    assertThat(p.containsKey("stream_options")).isFalse();
    assertThat(((Map<?, ?>) p.get("kv_transfer_params")).get("do_remote_decode")).isEqualTo(true);
    Map<?, ?> d = (Map<?, ?>) Json.parse(decode.seen().get(0).body());
    assertThat(d.get("max_tokens")).isEqualTo(4L);
    assertThat(d.get("stream")).isEqualTo(true);
    Map<?, ?> kv = (Map<?, ?>) d.get("kv_transfer_params");
    assertThat(kv.get("remote_engine_id")).isEqualTo("engine-p0");
    assertThat(kv.get("remote_block_ids")).isEqualTo(List.of(1L, 2L, 3L));
    assertThat(kv.get("do_remote_prefill")).isEqualTo(true);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                router
                        .adminGet("/metrics")
                        .body()
                        .contains("infera_worker_inflight{worker=\"p0\"} 0.0")
                    && router
                        .adminGet("/metrics")
                        .body()
                        .contains("infera_worker_inflight{worker=\"d0\"} 0.0"));
  }

  /** The prefill worker's answer is the one compared for index accuracy; decode's is not. */
  @Test
  void indexAccuracyComparesThePrefillAnswer() throws Exception {
    for (String engine : List.of("vllm", "sglang")) {
      prefill.script(
          s ->
              StubEngine.Canned.json(
                  200,
                  "{\"id\":\"cmpl-p0\",\"choices\":[{\"index\":0,\"text\":\"\"}],"
                      + "\"kv_transfer_params\":{\"remote_engine_id\":\"engine-p0\","
                      + "\"remote_block_ids\":[1],\"do_remote_prefill\":true},"
                      + "\"usage\":{\"prompt_tokens\":80,\"prompt_tokens_details\":"
                      + "{\"cached_tokens\":40}}}"));
      decode.script(
          s ->
              StubEngine.Canned.json(
                  200,
                  "{\"choices\":[],\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":999}}}"));
      start(engine);
      assertThat(router.post("/v1/completions", BODY).statusCode()).isEqualTo(200);
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> router.runtime.indexAccuracy().status().get("samples").equals(1));
      // 40 tokens: 2 blocks of 16; the index knows nothing (no events): predicted 0.
      assertThat(router.adminGet("/metrics").body())
          .as(engine)
          .contains("infera_index_accuracy_blocks_total{kind=\"reported\",pool=\"static\"} 2.0")
          .contains("infera_index_accuracy_blocks_total{kind=\"predicted\",pool=\"static\"} 0.0");
      assertThat(router.adminGet("/v1/admin/status").body()).contains("\"index_accurate\":{");
      router.close();
      router = null;
    }
  }

  /** The prefill stub answers vLLM's prefill copies with {@code kv} as its kv_transfer_params. */
  private void prefillAnswersKv(String kv) {
    prefill.script(
        s ->
            s.body().contains("\"do_remote_decode\":true")
                ? StubEngine.Canned.json(
                    200,
                    "{\"id\":\"cmpl-p0\",\"choices\":[{\"index\":0,\"text\":\"\","
                        + "\"finish_reason\":\"stop\"}]"
                        + (kv == null ? "" : ",\"kv_transfer_params\":" + kv)
                        + "}")
                : null);
  }

  @Test
  void vllmPrefillThatEndedWithoutKvContinuesToDecodeWithTheClientsBody() throws Exception {
    start("vllm");
    prefillAnswersKv("null"); // the engine kept no KV for a remote decode: nothing to pull
    String body = BODY.replace("}", ",\"min_tokens\":3,\"stream\":true}");
    HttpResponse<String> r = router.post("/v1/completions", body);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(StubEngine.sse("d0"));
    Map<?, ?> p = (Map<?, ?>) Json.parse(prefill.seen().get(0).body());
    assertThat(p.containsKey("min_tokens")).isFalse();
    assertThat(p.get("max_tokens")).isEqualTo(1L);
    Map<?, ?> d = (Map<?, ?>) Json.parse(decode.seen().get(0).body());
    assertThat(d).isEqualTo(Json.parse(body));
    assertThat(router.adminGet("/metrics").body())
        .contains("infera_handover_without_kv_total{reason=\"null\"} 1.0")
        .contains("infera_handover_without_kv_total{reason=\"absent\"} 0.0");

    prefillAnswersKv(null); // no field at all (a prefill pool without a KV connector)
    assertThat(router.post("/v1/completions", BODY).statusCode()).isEqualTo(200);
    assertThat(
            ((Map<?, ?>) Json.parse(decode.seen().get(1).body())).containsKey("kv_transfer_params"))
        .isFalse();
    assertThat(router.adminGet("/metrics").body())
        .contains("infera_handover_without_kv_total{reason=\"absent\"} 1.0");
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                router
                        .adminGet("/metrics")
                        .body()
                        .contains("infera_worker_inflight{worker=\"p0\"} 0.0")
                    && router
                        .adminGet("/metrics")
                        .body()
                        .contains("infera_worker_inflight{worker=\"d0\"} 0.0"));
  }

  @Test
  void vllmMinTokensGoToDecodeOnly() throws Exception {
    start("vllm");
    String body = BODY.replace("}", ",\"min_tokens\":3,\"min_completion_tokens\":2}");
    assertThat(router.post("/v1/completions", body).statusCode()).isEqualTo(200);
    Map<?, ?> p = (Map<?, ?>) Json.parse(prefill.seen().get(0).body());
    assertThat(p.containsKey("min_tokens") || p.containsKey("min_completion_tokens")).isFalse();
    Map<?, ?> d = (Map<?, ?>) Json.parse(decode.seen().get(0).body());
    assertThat(d.get("min_tokens")).isEqualTo(3L);
    assertThat(d.get("min_completion_tokens")).isEqualTo(2L);
    assertThat(((Map<?, ?>) d.get("kv_transfer_params")).get("remote_engine_id"))
        .isEqualTo("engine-p0");
  }

  @Test
  void vllmPrefillKvParamsThatAreNotAnObjectAreA502AndNothingGoesToDecode() throws Exception {
    start("vllm");
    for (String kv : List.of("[1,2]", "\"x\"", "7", "true")) {
      prefillAnswersKv(kv);
      HttpResponse<String> r = router.post("/v1/completions", BODY);
      assertThat(r.statusCode()).as(kv).isEqualTo(502);
      assertThat(r.body()).contains("prefill worker p0").contains("not an object");
    }
    prefill.script(
        s -> s.path().equals("/v1/completions") ? StubEngine.Canned.json(200, "<html>") : null);
    HttpResponse<String> r = router.post("/v1/completions", BODY);
    assertThat(r.statusCode()).isEqualTo(502);
    assertThat(r.body()).contains("prefill worker p0 answered with invalid JSON");
    assertThat(decode.seen()).isEmpty();
  }

  @Test
  void aHugeChunkedPrefillAnswerIsCutAtTheLimit() throws Exception {
    start("vllm");
    // No content-length to refuse it by: the reader stops at the limit.
    String chunk = "x".repeat(64 * 1024);
    List<String> chunks = new java.util.ArrayList<>();
    chunks.add("{\"choices\":[{\"text\":\"");
    for (int i = 0; i < 20; i++) {
      chunks.add(chunk);
    }
    chunks.add("\"}],\"kv_transfer_params\":{\"remote_host\":\"h\"}}");
    prefill.script(
        s -> s.path().equals("/v1/completions") ? new StubEngine.Canned(200, chunks) : null);
    HttpResponse<String> r = router.post("/v1/completions", BODY);
    assertThat(r.statusCode()).isEqualTo(502);
    assertThat(r.body())
        .contains(
            "prefill worker p0 answered more than "
                + DisaggregatedDispatch.MAX_PREFILL_ANSWER_BYTES
                + " bytes");
    assertThat(decode.seen()).isEmpty();
    // One with a content-length over the limit is refused before reading.
    prefill.script(
        s ->
            s.path().equals("/v1/completions")
                ? StubEngine.Canned.json(200, String.join("", chunks))
                : null);
    assertThat(router.post("/v1/completions", BODY).statusCode()).isEqualTo(502);
    assertThat(decode.seen()).isEmpty();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                router
                        .adminGet("/metrics")
                        .body()
                        .contains("infera_worker_inflight{worker=\"p0\"} 0.0")
                    && router
                        .adminGet("/metrics")
                        .body()
                        .contains("infera_worker_inflight{worker=\"d0\"} 0.0"));
  }

  @Test
  void engineTokenizerModeAsksThePrefillWorkerOfADisaggregatedFleet() throws Exception {
    startWith(
        "{mode: engine}", new StubEngine[] {prefill, decode}, "p0 prefill vllm", "d0 decode vllm");
    String chat = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":4}";
    HttpResponse<String> r = router.post("/v1/chat/completions", chat);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(prefill.seen())
        .extracting(StubEngine.Seen::path)
        .containsExactly("/tokenize", "/v1/chat/completions");
    assertThat(decode.seen())
        .extracting(StubEngine.Seen::path)
        .containsExactly("/v1/chat/completions");
    Map<?, ?> tokenize = (Map<?, ?>) Json.parse(prefill.seen().get(0).body());
    assertThat(tokenize.get("messages")).isNotNull();
    assertThat(tokenize.get("add_special_tokens")).isEqualTo(false);
    // The stub's 40 tokens are 2 blocks of 16: the request was hashed from the engine's tokens.
    Map<?, ?> e = (Map<?, ?>) Json.parse(router.adminPost("/v1/admin/explain", chat).body());
    assertThat(e.get("request_blocks")).isEqualTo(2L);
    assertThat(router.adminGet("/metrics").body())
        .doesNotContain("infera_tokenize_failures_total{");
  }

  @Test
  void vllmPrefillErrorsReachTheClientAndNothingGoesToDecode() throws Exception {
    start("vllm");
    prefill.mode(StubEngine.Mode.STATUS_429);
    HttpResponse<String> r = router.post("/v1/completions", BODY);
    assertThat(r.statusCode()).isEqualTo(429);
    assertThat(r.body()).contains("slow down");
    assertThat(decode.seen()).isEmpty();
  }

  /**
   * ATOM's hand-over (docs/atom.md): the prefill copy carries only ATOM's two switches; the decode
   * request gets the prefill answer's params (the fields ATOM's Mooncake connector writes) plus the
   * prefill layout, which ATOM's answer leaves out.
   */
  @Test
  void atomPrefillParamsReachDecodeWithThePrefillLayout() throws Exception {
    start("atom");
    prefillAnswersKv(
        "{\"do_remote_prefill\":true,\"do_remote_decode\":false,\"remote_block_ids\":[5,6],"
            + "\"remote_engine_id\":\"atom-p0\",\"remote_host\":\"10.1.2.3\","
            + "\"remote_port\":6301,\"remote_handshake_port\":6301,\"tp_size\":8,"
            + "\"dp_rank\":0,\"transfer_id\":99}");
    String body = BODY.replace("}", ",\"stream\":true}");
    HttpResponse<String> r = router.post("/v1/completions", body);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(StubEngine.sse("d0"));
    assertThat(r.headers().firstValue("x-infera-prefill-worker")).hasValue("p0");
    Map<?, ?> p = (Map<?, ?>) Json.parse(prefill.seen().get(0).body());
    assertThat(p.get("kv_transfer_params"))
        .isEqualTo(Map.of("do_remote_decode", true, "do_remote_prefill", false));
    assertThat(p.get("max_tokens")).isEqualTo(1L);
    assertThat(p.get("stream")).isEqualTo(false);
    Map<?, ?> d = (Map<?, ?>) Json.parse(decode.seen().get(0).body());
    assertThat(d.get("stream")).isEqualTo(true);
    Map<?, ?> kv = (Map<?, ?>) d.get("kv_transfer_params");
    assertThat(kv.get("remote_engine_id")).isEqualTo("atom-p0");
    assertThat(kv.get("transfer_id")).isEqualTo(99L);
    assertThat(kv.get("remote_tp_size")).isEqualTo(8L);
    assertThat(kv.get("remote_dp_rank")).isEqualTo(0L);
    assertThat(kv.get("remote_dp_size")).isEqualTo(1L);
  }

  @Test
  void atomPrefillAndVllmDecodeGetA503NamingWhy() throws Exception {
    startWith(new StubEngine[] {prefill, decode}, "p0 prefill atom", "d0 decode vllm");
    HttpResponse<String> r = router.post("/v1/completions", BODY);
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.body()).contains("prefill/decode pools of engine atom and vllm");
    assertThat(prefill.seen()).isEmpty();
  }

  @Test
  void mixedEnginesAcrossPrefillAndDecodeGetA503NamingWhy() throws Exception {
    startWith(new StubEngine[] {prefill, decode}, "p0 prefill vllm", "d0 decode sglang");
    HttpResponse<String> r = router.post("/v1/completions", BODY);
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.body()).contains("prefill/decode pools of engine vllm and sglang");
    assertThat(prefill.seen()).isEmpty();
    assertThat(decode.seen()).isEmpty();
  }

  @Test
  void explainShowsThePrefillChoice() throws Exception {
    start("sglang");
    Map<?, ?> e = (Map<?, ?>) Json.parse(router.adminPost("/v1/admin/explain", BODY).body());
    assertThat(e.get("picked")).isEqualTo("p0");
    assertThat((List<?>) e.get("workers")).hasSize(1);
  }
}
