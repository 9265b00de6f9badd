package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.Role;
import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.Discovery;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.events.EventTransport;
import io.infera.router.events.FakeVllmPublisher;
import io.infera.router.events.nats.NatsTransport;
import io.infera.router.events.nats.NatsTransportIT;
import io.infera.router.json.Json;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.Events;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.WorkerId;
import io.infera.router.nats.EventSubjects;
import io.infera.router.runtime.RouterRuntime;
import io.infera.router.testing.NatsServer;
import io.infera.router.tokenize.ChatInput;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.TestTokenizers;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The router with {@code events.transport: nats} against a real nats-server: vLLM batches published
 * on JetStream subjects (as the relay does) drive cache-view and explain; a snapshot seeds a router
 * that starts after retention dropped old events; garbage is counted while the router keeps
 * serving; readiness waits for the stream; a late worker gets its events; a killed server is
 * survived without applying anything twice.
 */
class RouterNatsIT {

  private static final String PREFIX = "infera.kv.events";
  private static final List<Object> MESSAGES =
      List.of(
          Map.of("role", "system", "content", "Shared context. ".repeat(60)),
          Map.of("role", "user", "content", "question"));
  private static final String BODY = "{\"messages\":" + Json.write(MESSAGES) + "}";

  @TempDir Path dir;

  private Vertx vertx;
  private StubEngine a;
  private StubEngine b;
  private NatsServer server;
  private NatsTransportIT.Publisher pub;
  private RouterHarness router;
  private int[] ids;
  private long[] engine;

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    a = new StubEngine(vertx, "a");
    b = new StubEngine(vertx, "b");
    server = NatsServer.start(dir.resolve("nats"));
    ids = TestTokenizers.qwen3().encodeChat(ChatInput.of(new ArrayList<>(MESSAGES))).ids();
    engine = new long[ids.length / 16];
    for (int i = 0; i < engine.length; i++) {
      engine[i] = 0xF000_0000_0000_0000L + i; // u64 above 2^63, as vLLM sends them
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    if (router != null) {
      router.close();
    }
    if (pub != null) {
      pub.close();
    }
    server.close();
    a.close();
    b.close();
    vertx.close();
  }

  private String yaml() {
    return "model: m\npageSize: 16\ntokenizer: {path: 'builtin:qwen3'}\n"
        + "events:\n  transport: nats\n  nats: {url: '"
        + server.url()
        + "', stream: KV_IT, subjectPrefix: '"
        + PREFIX
        + "', snapshotBucket: kv_it_snapshots}\n"
        + "listen: {host: 127.0.0.1, port: 0}\ndiscovery:\n  healthIntervalMs: 200\n  workers:\n"
        + "    - {id: a, url: '"
        + a.url()
        + "'}\n"
        + "    - {id: b, url: '"
        + b.url()
        + "'}\n";
  }

  /** Production transport ({@code DefaultParts}) or test-tuned one, and the given discovery. */
  private RouterRuntime.Parts parts(Discovery discovery, boolean testTuned) {
    var production = new io.infera.router.runtime.DefaultParts();
    return new RouterRuntime.Parts() {
      @Override
      public Discovery discovery(RouterConfig c) {
        return discovery != null ? discovery : production.discovery(c);
      }

      @Override
      public EventTransport transport(RouterConfig c) {
        return testTuned
            ? new NatsTransport(c.events().nats(), c.pageSize(), NatsTransportIT.settings())
            : production.transport(c);
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
  }

  private KvEvent stored(int from, int to) {
    return Events.stored(
        16,
        Arrays.copyOfRange(engine, from, to),
        from == 0 ? null : engine[from - 1],
        Arrays.copyOfRange(ids, from * 16, to * 16));
  }

  private long publish(String worker, long engineSeq, KvEvent e) throws Exception {
    return pub.publish(
        WorkerId.of(worker), 0, engineSeq, FakeVllmPublisher.batchPayload(1.0, 0, e));
  }

  private Map<?, ?> status() throws Exception {
    return (Map<?, ?>) Json.parse(router.adminGet("/v1/admin/status").body());
  }

  private Map<?, ?> source(Map<?, ?> status, String worker) {
    for (Object o : (List<?>) status.get("sources")) {
      Map<?, ?> s = (Map<?, ?>) o;
      if (worker.equals(s.get("worker_id"))) {
        return s;
      }
    }
    throw new AssertionError("no source " + worker + " in " + status);
  }

  @Test
  void aSnapshotSeededRouterRoutesOnJetStreamEventsAndShrugsOffGarbage() throws Exception {
    pub = new NatsTransportIT.Publisher(server.url(), PREFIX, 6);
    // Static discovery: the workers' pool is "static".
    pub.pool = EventSubjects.DEFAULT_POOL;
    int full = engine.length;
    int half = full / 2;
    // b stores the first half; its relay snapshots that view (watermark = that message).
    PrefixIndex relayView = new PrefixIndex(16);
    KvEvent first = stored(0, half);
    long w = publish("b", 0, first);
    relayView.apply(WorkerId.of("b"), 0, new EventBatch(1.0, List.of(first), 0, 0));
    pub.putSnapshot(relayView.snapshot(SourceId.of("b", 0), w), "b", 0);
    // a's traffic pushes b's first batch (and a's own first one) out of the 6-message stream.
    for (int i = 0; i < 6; i++) {
      publish(
          "a",
          i,
          Events.stored(
              16, new long[] {100 + i}, i == 0 ? null : 99L + i, Events.range(1000 + 16 * i, 16)));
    }
    publish("b", 1, stored(half, full));

    router = RouterHarness.start(vertx, ConfigLoader.parse(yaml()), parts(null, false));
    await().atMost(Duration.ofSeconds(20)).until(() -> router.get("/ready").statusCode() == 200);
    assertThat(router.adminGet("/v1/admin/cache-view/b").body())
        .contains("\"block_count\":" + full);
    Map<?, ?> explain = (Map<?, ?>) Json.parse(router.adminPost("/v1/admin/explain", BODY).body());
    assertThat(explain.get("picked")).isEqualTo("b");
    assertThat(router.adminPost("/v1/admin/explain", BODY).body())
        .contains("\"worker_id\":\"b\",\"role\":\"mixed\",\"cache_hits\":" + full);
    HttpResponse<String> r = router.post("/v1/chat/completions", BODY);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-infera-worker")).hasValue("b");

    Map<?, ?> status = status();
    assertThat(status.get("events_transport")).isEqualTo("nats");
    Map<?, ?> nats = (Map<?, ?>) status.get("nats");
    assertThat(nats.get("warm")).isEqualTo(true);
    assertThat(num(nats.get("snapshots_seeded"))).isEqualTo(1);
    assertThat(num(nats.get("lost_messages"))).isEqualTo(2);
    Map<?, ?> sb = source(status, "b");
    assertThat(sb.get("health")).isEqualTo("healthy");
    assertThat(num(sb.get("last_engine_seq"))).isEqualTo(1);
    assertThat(num(sb.get("last_stream_seq"))).isEqualTo(8);
    assertThat(num(sb.get("snapshot_stream_seq"))).isEqualTo(w);
    assertThat(((Number) sb.get("snapshot_age_seconds")).doubleValue()).isBetween(0.0, 60.0);
    assertThat(num(sb.get("stream_lag_messages"))).isZero();
    // a lost its first batch to retention and has no snapshot: honest about it.
    Map<?, ?> sa = source(status, "a");
    assertThat(sa.get("health")).isEqualTo("degraded");
    assertThat(sa.get("degraded_reason")).isEqualTo("engine_gap");

    // Garbage on event subjects: counted, skipped, and the router keeps serving.
    pub.raw(PREFIX + ".%%%.0", null, new byte[] {1});
    pub.publish(WorkerId.of("b"), 0, 2L, new byte[] {(byte) 0xc1, 0, 1});
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              String m = router.adminGet("/metrics").body();
              return m.contains("infera_nats_garbage_subjects_total 1.0")
                  && m.contains(
                      "infera_kv_events_dropped_total{reason=\"decode_error\",worker=\"b\"} 1.0");
            });
    assertThat(router.get("/ready").statusCode()).isEqualTo(200);
    assertThat(router.post("/v1/chat/completions", BODY).statusCode()).isEqualTo(200);
    assertThat(router.adminGet("/v1/admin/cache-view/b").body())
        .contains("\"block_count\":" + full);
    assertThat(router.adminGet("/metrics").body())
        .contains("infera_nats_snapshots_seeded_total 1.0")
        .contains("infera_nats_stream_lag 0.0");
  }

  @Test
  void readyWaitsForNatsAndALateWorkerAndAKilledServerAreHandled() throws Exception {
    server.kill();
    MutableDiscovery discovery = new MutableDiscovery(List.of(info("a", a)));
    router = RouterHarness.start(vertx, ConfigLoader.parse(yaml()), parts(discovery, true));
    // No broker yet: not ready, and saying why.
    Thread.sleep(500);
    HttpResponse<String> notReady = router.get("/ready");
    assertThat(notReady.statusCode()).isEqualTo(503);
    assertThat(notReady.body()).contains("KV events (nats)");
    assertThat(router.get("/health").statusCode()).isEqualTo(200);

    server.restart();
    await().atMost(Duration.ofSeconds(20)).until(() -> router.get("/ready").statusCode() == 200);
    pub = new NatsTransportIT.Publisher(server.url(), PREFIX, 0);

    // b is not discovered yet: its events wait, and arrive with it.
    int full = engine.length;
    int half = full / 2;
    publish("b", 0, stored(0, half));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> num(((Map<?, ?>) status().get("nats")).get("held_messages")) == 1);
    assertThat(router.adminGet("/v1/admin/cache-view/b").statusCode()).isEqualTo(404);
    discovery.set(List.of(info("a", a), info("b", b)));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                router
                    .adminGet("/v1/admin/cache-view/b")
                    .body()
                    .contains("\"block_count\":" + half));

    // The broker dies and comes back: the router resumes after what it processed.
    pub.close();
    server.kill();
    server.restart();
    pub = new NatsTransportIT.Publisher(server.url(), PREFIX, 0);
    publish("b", 1, stored(half, full));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                router
                    .adminGet("/v1/admin/cache-view/b")
                    .body()
                    .contains("\"block_count\":" + full));
    assertThat(router.adminPost("/v1/admin/explain", BODY).body())
        .contains("\"worker_id\":\"b\",\"role\":\"mixed\",\"cache_hits\":" + full);
    String metrics = router.adminGet("/metrics").body();
    assertThat(metrics)
        .contains("infera_kv_events_applied_total{worker=\"b\"} 2.0")
        .contains("infera_kv_events_dropped_total{reason=\"duplicate_batch\",worker=\"b\"} 0.0")
        .contains("infera_nats_undiscovered_dropped_total 0.0");
    assertThat(metric(metrics, "infera_nats_reconnects_total")).isGreaterThanOrEqualTo(1.0);
    assertThat(source(status(), "b").get("health")).isEqualTo("healthy");
  }

  private static long num(Object o) {
    return ((Number) o).longValue();
  }

  private static double metric(String scrape, String series) {
    for (String line : scrape.split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1));
      }
    }
    throw new AssertionError("no metric " + series);
  }

  private static WorkerInfo info(String id, StubEngine e) {
    return new WorkerInfo(
        WorkerId.of(id),
        e.url(),
        Role.MIXED,
        "vllm",
        1,
        null,
        null,
        WorkerInfo.Readiness.READY,
        "it");
  }

  /** Discovery the test changes by hand. */
  private static final class MutableDiscovery implements Discovery {
    private volatile List<WorkerInfo> workers;
    private volatile Listener listener;

    MutableDiscovery(List<WorkerInfo> workers) {
      this.workers = workers;
    }

    void set(List<WorkerInfo> next) {
      workers = next;
      listener.onWorkers(next);
    }

    @Override
    public void start(Listener l) {
      listener = l;
      l.onWorkers(workers);
    }

    @Override
    public boolean synced() {
      return listener != null;
    }

    @Override
    public String name() {
      return "test";
    }

    @Override
    public void close() {}
  }
}
