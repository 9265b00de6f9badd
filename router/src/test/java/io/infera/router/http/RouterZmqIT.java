package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.Discovery;
import io.infera.router.events.EventTransport;
import io.infera.router.events.FakeVllmPublisher;
import io.infera.router.json.Json;
import io.infera.router.runtime.RouterRuntime;
import io.infera.router.tokenize.ChatInput;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.TestTokenizers;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The router with the real {@code zmq} transport: an engine-like publisher sends vLLM-format
 * 3-frame batches; cache-view and explain reflect them, and removals take blocks away again.
 */
class RouterZmqIT {

  @Test
  void vllmEventsOverZmqDriveTheIndexCacheViewAndExplain() throws Exception {
    Vertx vertx = Vertx.vertx();
    StubEngine a = new StubEngine(vertx, "a");
    StubEngine b = new StubEngine(vertx, "b");
    FakeVllmPublisher pubA = FakeVllmPublisher.builder().replay(true).start();
    FakeVllmPublisher pubB = FakeVllmPublisher.builder().replay(true).start();
    String yaml =
        "model: m\npageSize: 16\ntokenizer: {path: 'builtin:qwen3'}\nevents: {transport: zmq}\n"
            + "listen: {host: 127.0.0.1, port: 0}\ndiscovery:\n  workers:\n"
            + "    - {id: a, url: '"
            + a.url()
            + "', zmq: '"
            + pubA.endpoint()
            + "', zmqReplay: '"
            + pubA.replayEndpoint()
            + "'}\n"
            + "    - {id: b, url: '"
            + b.url()
            + "', zmq: '"
            + pubB.endpoint()
            + "', zmqReplay: '"
            + pubB.replayEndpoint()
            + "'}\n";
    RouterConfig cfg = ConfigLoader.parse(yaml);
    io.infera.router.runtime.DefaultParts production = new io.infera.router.runtime.DefaultParts();
    RouterRuntime.Parts parts =
        new RouterRuntime.Parts() {
          @Override
          public Discovery discovery(RouterConfig c) {
            return production.discovery(c);
          }

          @Override
          public EventTransport transport(RouterConfig c) {
            return production.transport(c);
          }

          @Override
          public PromptTokenizer tokenizer(RouterConfig c) {
            return TestTokenizers.qwen3();
          }

          @Override
          public boolean ownsTokenizer() {
            return false;
          }
        };
    RouterHarness router = RouterHarness.start(vertx, cfg, parts);
    try {
      await().atMost(Duration.ofSeconds(15)).until(() -> router.get("/ready").statusCode() == 200);
      List<Object> msgs =
          List.of(
              Map.of("role", "system", "content", "Shared context. ".repeat(60)),
              Map.of("role", "user", "content", "question"));
      int[] ids = TestTokenizers.qwen3().encodeChat(ChatInput.of(new ArrayList<>(msgs))).ids();
      int full = ids.length / 16;
      long[] engine = new long[full];
      for (int i = 0; i < full; i++) {
        engine[i] = 0xF000_0000_0000_0000L + i; // u64 above 2^63, as vLLM sends them
      }
      // The engine stores the first half, then the rest chained on it (parent = last engine hash).
      int half = full / 2;
      pubB.publishStored(Arrays.copyOf(engine, half), null, Arrays.copyOf(ids, half * 16));
      pubB.publishStored(
          Arrays.copyOfRange(engine, half, full),
          engine[half - 1],
          Arrays.copyOfRange(ids, half * 16, full * 16));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  router
                      .adminGet("/v1/admin/cache-view/b")
                      .body()
                      .contains("\"block_count\":" + full));
      String body = "{\"messages\":" + Json.write(msgs) + "}";
      Map<?, ?> explain =
          (Map<?, ?>) Json.parse(router.adminPost("/v1/admin/explain", body).body());
      assertThat(explain.get("picked")).isEqualTo("b");
      assertThat(router.adminPost("/v1/admin/explain", body).body())
          .contains("\"worker_id\":\"b\",\"role\":\"mixed\",\"cache_hits\":" + full)
          .contains("\"worker_id\":\"a\",\"role\":\"mixed\",\"cache_hits\":0");
      HttpResponse<String> r = router.post("/v1/chat/completions", body);
      assertThat(r.headers().firstValue("x-infera-worker")).hasValue("b");
      // Eviction of the chain's second half shortens the match.
      pubB.publishRemoved(Arrays.copyOfRange(engine, half, full));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  router
                      .adminGet("/v1/admin/cache-view/b")
                      .body()
                      .contains("\"block_count\":" + half));
      assertThat(router.adminPost("/v1/admin/explain", body).body())
          .contains("\"cache_hits\":" + half);
      Map<?, ?> status = (Map<?, ?>) Json.parse(router.adminGet("/v1/admin/status").body());
      assertThat(status.get("events_transport")).isEqualTo("zmq");
      // A removal of blocks b never stored is dropped and counted against b.
      pubB.publishRemoved(new long[] {424242L});
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  router
                      .adminGet("/metrics")
                      .body()
                      .contains(
                          "infera_kv_events_dropped_total{reason=\"unknown_block_removed\","
                              + "worker=\"b\"} 1.0"));
      assertThat(router.adminGet("/metrics").body())
          .contains("infera_kv_events_applied_total{worker=\"b\"} 4.0")
          .contains(
              "infera_kv_events_dropped_total{reason=\"unknown_block_removed\",worker=\"a\"} 0.0")
          .contains("# TYPE infera_zmq_idle_probes_total counter")
          .contains("# TYPE infera_zmq_probe_duplicates_total counter")
          .contains("infera_zmq_missed_messages_total 0.0");
    } finally {
      router.close();
      pubA.close();
      pubB.close();
      a.close();
      b.close();
      vertx.close();
    }
  }
}
