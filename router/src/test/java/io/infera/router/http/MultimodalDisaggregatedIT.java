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
 * A multimodal request through the real router on a prefill/decode fleet of stub engines: the
 * prefill pick ignores text hits (a prefill worker caching the text does not draw an image
 * request), the pick is remembered for the image and {@code /v1/admin/explain} and the metrics show
 * the affinity; the body reaches both halves unchanged, images included.
 */
class MultimodalDisaggregatedIT {

  private static final String PROMPT = "word ".repeat(80);

  private Vertx vertx;
  private StubEngine p0;
  private StubEngine p1;
  private StubEngine d0;
  private RouterHarness router;

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    p0 = new StubEngine(vertx, "p0");
    p1 = new StubEngine(vertx, "p1");
    d0 = new StubEngine(vertx, "d0");
    StringBuilder yaml =
        new StringBuilder(
            "model: Qwen/Qwen3-0.6B\npageSize: 16\ntokenizer: {path: 'builtin:qwen3'}\n"
                + "policy: {overlapWeight: 1.0}\n"
                + "events: {transport: inproc, inprocBus: 'mm-"
                + System.nanoTime()
                + "'}\nlisten: {host: 127.0.0.1, port: 0}\n"
                + "discovery:\n  healthIntervalMs: 200\n  workers:\n");
    String[][] workers = {{"p0", "prefill"}, {"p1", "prefill"}, {"d0", "decode"}};
    StubEngine[] stubs = {p0, p1, d0};
    for (int i = 0; i < stubs.length; i++) {
      yaml.append("    - {id: ")
          .append(workers[i][0])
          .append(", url: '")
          .append(stubs[i].url())
          .append("', role: ")
          .append(workers[i][1])
          .append(", engine: sglang}\n");
    }
    router =
        RouterHarness.start(vertx, ConfigLoader.parse(yaml.toString()), RouterHarness.testParts());
    await().atMost(Duration.ofSeconds(10)).until(() -> router.get("/ready").statusCode() == 200);
  }

  @AfterEach
  void tearDown() throws Exception {
    router.close();
    p0.close();
    p1.close();
    d0.close();
    vertx.close();
  }

  private static String body(String image) {
    return "{\"model\":\"Qwen/Qwen3-0.6B\",\"prompt\":\""
        + PROMPT
        + "\",\"max_tokens\":4"
        + (image == null ? "" : ",\"images\":[\"" + image + "\"]")
        + "}";
  }

  @Test
  @SuppressWarnings("unchecked")
  void thePrefillPickUsesImageAffinityNotTextHits() throws Exception {
    // p1 caches the prompt's text: a text-only request goes there.
    int[] ids = TestTokenizers.qwen3().encodeText(PROMPT).ids();
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
    HttpResponse<String> text = router.post("/v1/completions", body(null));
    assertThat(text.headers().firstValue("x-infera-prefill-worker")).hasValue("p1");

    // The same text with an image: its text hits are not trusted, the idle fleet ties → p0.
    String image = "https://images.example/cat.png";
    HttpResponse<String> first = router.post("/v1/completions", body(image));
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.headers().firstValue("x-infera-prefill-worker")).hasValue("p0");
    assertThat(first.headers().firstValue("x-infera-cache-hit-blocks")).hasValue("0");
    assertThat(first.headers().firstValue("x-infera-worker")).hasValue("d0");
    Map<?, ?> seen = (Map<?, ?>) Json.parse(d0.seen().get(d0.seen().size() - 1).body());
    assertThat(seen.get("images")).isEqualTo(List.of(image));

    // explain: p0 holds the image, p1's text hits are not used.
    Map<String, Object> explain =
        (Map<String, Object>) Json.parse(router.adminPost("/v1/admin/explain", body(image)).body());
    assertThat(explain.get("picked")).isEqualTo("p0");
    assertThat(explain.get("mm_images")).isEqualTo(1L);
    assertThat(explain.get("mm_affinity_hits")).isEqualTo(1L);
    List<Map<String, Object>> workers = (List<Map<String, Object>>) explain.get("workers");
    assertThat(workers)
        .anySatisfy(
            w -> {
              assertThat(w.get("worker_id")).isEqualTo("p1");
              assertThat(w.get("cache_hits")).isEqualTo(0L);
              assertThat(w.get("image_hits")).isEqualTo(0L);
            });

    HttpResponse<String> repeat = router.post("/v1/completions", body(image));
    assertThat(repeat.headers().firstValue("x-infera-prefill-worker")).hasValue("p0");
    String metrics = router.adminGet("/metrics").body();
    assertThat(metrics)
        .contains("infera_multimodal_requests_total 3.0")
        .contains("infera_multimodal_images_total{affinity=\"hit\"} 1.0")
        .contains("infera_multimodal_images_total{affinity=\"miss\"} 1.0");
  }
}
