package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.Discovery;
import io.infera.router.events.EventTransport;
import io.infera.router.events.FakeVllmPublisher;
import io.infera.router.events.nats.NatsTransport;
import io.infera.router.events.nats.NatsTransportIT;
import io.infera.router.json.Json;
import io.infera.router.kv.Events;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.WorkerId;
import io.infera.router.runtime.DefaultParts;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The router when NATS is away, against a real nats-server stopped before the router starts and
 * killed mid-run: it becomes ready without its index and routes by load, says so in {@code
 * events_condition} and the metrics, stays ready while it catches up when NATS returns, and ends
 * with the exact view. A dead index writer makes it not ready.
 */
@Timeout(120)
class RouterNatsOutageIT {

  private static final String PREFIX = "infera.kv.events";
  private static final long GRACE_MS = 1000;
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
      engine[i] = 0xF000_0000_0000_0000L + i;
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
        + "', snapshotBucket: kv_it_snapshots, outageReadyAfterMs: "
        + GRACE_MS
        + "}\n"
        + "listen: {host: 127.0.0.1, port: 0}\ndiscovery:\n  healthIntervalMs: 200\n  workers:\n"
        + "    - {id: a, url: '"
        + a.url()
        + "'}\n"
        + "    - {id: b, url: '"
        + b.url()
        + "'}\n";
  }

  private RouterRuntime.Parts parts() {
    DefaultParts production = new DefaultParts();
    return new RouterRuntime.Parts() {
      @Override
      public Discovery discovery(RouterConfig c) {
        return production.discovery(c);
      }

      @Override
      public EventTransport transport(RouterConfig c) {
        return new NatsTransport(c.events().nats(), c.pageSize(), NatsTransportIT.settings());
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

  /** Publishes under the static workers' pool ({@code static}), as their relays would. */
  private NatsTransportIT.Publisher publisher() throws Exception {
    NatsTransportIT.Publisher p = new NatsTransportIT.Publisher(server.url(), PREFIX, 0);
    p.pool = io.infera.router.nats.EventSubjects.DEFAULT_POOL;
    return p;
  }

  private long publish(String worker, long engineSeq, KvEvent e) throws Exception {
    return pub.publish(
        WorkerId.of(worker), 0, engineSeq, FakeVllmPublisher.batchPayload(1.0, 0, e));
  }

  private Map<?, ?> condition() throws Exception {
    Map<?, ?> status = (Map<?, ?>) Json.parse(router.adminGet("/v1/admin/status").body());
    return (Map<?, ?>) status.get("events_condition");
  }

  private String blocks(String worker) throws Exception {
    return router.adminGet("/v1/admin/cache-view/" + worker).body();
  }

  private double metric(String series) throws Exception {
    for (String line : router.adminGet("/metrics").body().split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1));
      }
    }
    throw new AssertionError("no metric " + series);
  }

  /** Polls until {@code done}, asserting that {@code /ready} answers 200 on every poll. */
  private void staysReadyUntil(java.util.concurrent.Callable<Boolean> done) {
    await()
        .pollInterval(Duration.ofMillis(50))
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              assertThat(router.get("/ready").statusCode()).isEqualTo(200);
              return done.call();
            });
  }

  @Test
  void natsDownAtStartTheRouterIsReadyRoutesByLoadAndCatchesUpWhenNatsReturns() throws Exception {
    // b's events and nothing else are in the stream; then the server goes away.
    pub = publisher();
    int full = engine.length;
    publish("b", 0, stored(0, full));
    pub.close();
    pub = null;
    server.close();

    long t0 = System.nanoTime();
    router = RouterHarness.start(vertx, ConfigLoader.parse(yaml()), parts());
    // Not ready during the grace, saying why.
    HttpResponse<String> early = router.get("/ready");
    if (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) < GRACE_MS - 200) {
      assertThat(early.statusCode()).isEqualTo(503);
      assertThat(early.body()).contains("KV events (nats)");
    }
    await()
        .pollInterval(Duration.ofMillis(20))
        .atMost(Duration.ofSeconds(15))
        .until(() -> "routing_by_load".equals(condition().get("status")));
    long eventsGateMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    // The rest of the wait is the workers' first health checks, not NATS.
    String[] lastNotReady = {null};
    await()
        .pollInterval(Duration.ofMillis(20))
        .atMost(Duration.ofSeconds(15))
        .until(
            () -> {
              HttpResponse<String> r = router.get("/ready");
              if (r.statusCode() != 200) {
                lastNotReady[0] = r.body();
              }
              return r.statusCode() == 200;
            });
    System.out.println("nats-outage at start: last not-ready answer " + lastNotReady[0]);
    long readyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertThat(eventsGateMs).isGreaterThanOrEqualTo(GRACE_MS);
    Map<?, ?> c = condition();
    assertThat(c.get("status")).isEqualTo("routing_by_load");
    assertThat(c.get("reason")).isEqualTo("NatsUnreachable");
    assertThat((String) c.get("message")).contains("cannot connect to " + server.url());
    assertThat(metric("infera_events_index_unavailable")).isEqualTo(1.0);
    assertThat(metric("infera_events_outage")).isEqualTo(1.0);
    // It serves, by load: no worker has a cache hit in its (empty) index.
    for (int i = 0; i < 4; i++) {
      assertThat(router.post("/v1/chat/completions", BODY).statusCode()).isEqualTo(200);
    }
    assertThat(a.seen().size() + b.seen().size()).isEqualTo(4);
    assertThat(router.adminPost("/v1/admin/explain", BODY).body())
        .contains("\"worker_id\":\"b\",\"role\":\"mixed\",\"cache_hits\":0");

    // NATS returns: the router stays ready while it reads the stream, and ends with the view.
    server.restart();
    long t1 = System.nanoTime();
    staysReadyUntil(() -> "live".equals(condition().get("status")));
    long catchUpMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1);
    assertThat(blocks("b")).contains("\"block_count\":" + full);
    assertThat(router.adminPost("/v1/admin/explain", BODY).body())
        .contains("\"worker_id\":\"b\",\"role\":\"mixed\",\"cache_hits\":" + full);
    assertThat(metric("infera_events_index_unavailable")).isZero();
    assertThat(metric("infera_events_outage")).isZero();
    System.out.printf(
        "nats-outage at start: events_gate_ms=%d ready_ms=%d (grace %d) catch_up_ms=%d%n",
        eventsGateMs, readyMs, GRACE_MS, catchUpMs);
  }

  @Test
  void natsKilledMidRunTheRouterStaysReadyOnItsIndexAndResumesWhenNatsReturns() throws Exception {
    pub = publisher();
    router = RouterHarness.start(vertx, ConfigLoader.parse(yaml()), parts());
    await().atMost(Duration.ofSeconds(20)).until(() -> router.get("/ready").statusCode() == 200);
    assertThat(condition().get("status")).isEqualTo("live");
    int full = engine.length;
    int half = full / 2;
    publish("b", 0, stored(0, half));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> blocks("b").contains("\"block_count\":" + half));

    pub.close();
    pub = null;
    server.kill();
    staysReadyUntil(() -> "stale".equals(condition().get("status")));
    assertThat(condition().get("reason")).isEqualTo("NatsUnreachable");
    assertThat(metric("infera_events_outage")).isEqualTo(1.0);
    assertThat(metric("infera_events_index_unavailable")).isZero();
    // Still routing on the index as it was.
    HttpResponse<String> r = router.post("/v1/chat/completions", BODY);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-infera-worker")).hasValue("b");

    server.restart();
    long t1 = System.nanoTime();
    pub = publisher();
    publish("b", 1, stored(half, full));
    staysReadyUntil(() -> blocks("b").contains("\"block_count\":" + full));
    long catchUpMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1);
    staysReadyUntil(() -> "live".equals(condition().get("status")));
    assertThat(metric("infera_events_outage")).isZero();
    System.out.printf("nats-outage mid-run: catch_up_ms=%d%n", catchUpMs);
  }

  @Test
  void aDeadIndexWriterMakesTheRouterNotReady() throws Exception {
    pub = publisher();
    router = RouterHarness.start(vertx, ConfigLoader.parse(yaml()), parts());
    await().atMost(Duration.ofSeconds(20)).until(() -> router.get("/ready").statusCode() == 200);
    // The injected failure: an Error on the writer thread.
    router
        .runtime
        .ingest()
        .onWriter(
            i -> {
              throw new OutOfMemoryError("injected");
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> router.get("/ready").statusCode() == 503);
    assertThat(router.get("/ready").body()).contains("index writer thread died");
    assertThat(condition().get("status")).isEqualTo("failed");
    assertThat(condition().get("reason")).isEqualTo("IndexWriterDead");
    assertThat(metric("infera_kv_writer_dead")).isEqualTo(1.0);
    // Events keep arriving: the consumer is not frozen behind the dead writer.
    for (int i = 0; i < 5; i++) {
      publish("b", i, stored(i, i + 1));
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> metric("infera_kv_writer_abandoned_total") >= 5);
  }
}
