package io.infera.router.conformance;

import static org.awaitility.Awaitility.await;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.Discovery;
import io.infera.router.events.EventTransport;
import io.infera.router.http.RouterHarness;
import io.infera.router.http.StubEngine;
import io.infera.router.json.Json;
import io.infera.router.runtime.DefaultParts;
import io.infera.router.runtime.RouterRuntime;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.TestTokenizers;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The real router (production transports and discovery) on a free loopback port in front of stub
 * HTTP engines, read only through its HTTP API: {@code /v1/admin/explain} (what a request would hit
 * and where it would go), {@code /v1/admin/cache-view}, {@code /v1/admin/status}, {@code /metrics}.
 */
final class ConformanceRouter implements AutoCloseable {

  /** The router's page size; the LoRA adapter it serves besides the base model. */
  static final int PAGE = 16;

  static final String MODEL = "m";
  static final String LORA = "sql-lora";

  /** A worker of the static fleet: its id and the YAML fields after {@code id} and {@code url}. */
  record Worker(String id, String fields) {
    /** A worker whose events come from {@code engine}'s sockets. */
    static Worker zmq(String id, EngineProcess engine, int dpSize) {
      return new Worker(
          id,
          "engine: "
              + engine.engine
              + ", zmq: '"
              + engine.pub()
              + "', zmqReplay: '"
              + engine.replay()
              + "', dpSize: "
              + dpSize);
    }

    /** A worker whose events come over NATS (from its relay). */
    static Worker plain(String id, String engine) {
      return new Worker(id, "engine: " + engine);
    }
  }

  private final Vertx vertx = Vertx.vertx();
  private final List<StubEngine> stubs = new ArrayList<>();
  private final RouterHarness router;

  /** What one worker would hit for a request, and the pick. */
  record Explained(String picked, long pickedRank, Map<String, Long> hits) {}

  ConformanceRouter(String eventsYaml, List<Worker> workers) throws Exception {
    this(eventsYaml, workers, null);
  }

  ConformanceRouter(
      String eventsYaml,
      List<Worker> workers,
      Function<RouterConfig, EventTransport> transportOverride)
      throws Exception {
    StringBuilder yaml =
        new StringBuilder()
            .append("model: ")
            .append(MODEL)
            .append("\nloraAdapters: [")
            .append(LORA)
            .append("]\npageSize: ")
            .append(PAGE)
            .append("\ntokenizer: {path: 'builtin:qwen3'}\n")
            .append(eventsYaml)
            .append("\nlisten: {host: 127.0.0.1, port: 0}\n")
            .append("discovery:\n  healthIntervalMs: 200\n  workers:\n");
    for (Worker w : workers) {
      StubEngine stub = new StubEngine(vertx, w.id());
      stubs.add(stub);
      yaml.append("    - {id: ")
          .append(w.id())
          .append(", url: '")
          .append(stub.url())
          .append("', ")
          .append(w.fields())
          .append("}\n");
    }
    RouterConfig cfg = ConfigLoader.parse(yaml.toString());
    DefaultParts production = new DefaultParts();
    RouterRuntime.Parts parts =
        new RouterRuntime.Parts() {
          @Override
          public Discovery discovery(RouterConfig c) {
            return production.discovery(c);
          }

          @Override
          public EventTransport transport(RouterConfig c) {
            return transportOverride != null ? transportOverride.apply(c) : production.transport(c);
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
    router = RouterHarness.start(vertx, cfg, parts);
  }

  void awaitReady() {
    await().atMost(Duration.ofSeconds(30)).until(() -> router.get("/ready").statusCode() == 200);
  }

  /** {@code /v1/admin/explain} for a completion of {@code tokens}. */
  Explained explain(int[] tokens, String model, String salt) throws Exception {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("model", model);
    body.put("prompt", EngineProcess.list(tokens));
    body.put("max_tokens", 1);
    if (salt != null) {
      body.put("cache_salt", salt);
    }
    var r = router.adminPost("/v1/admin/explain", Json.write(body));
    if (r.statusCode() != 200) {
      throw new AssertionError("explain answered " + r.statusCode() + ": " + r.body());
    }
    Map<?, ?> m = (Map<?, ?>) Json.parse(r.body());
    Map<String, Long> hits = new LinkedHashMap<>();
    for (Object o : (List<?>) m.get("workers")) {
      Map<?, ?> w = (Map<?, ?>) o;
      hits.put((String) w.get("worker_id"), ((Number) w.get("cache_hits")).longValue());
    }
    Object rank = m.get("picked_dp_rank");
    return new Explained(
        (String) m.get("picked"), rank == null ? -1 : ((Number) rank).longValue(), hits);
  }

  Explained explain(int[] tokens) throws Exception {
    return explain(tokens, MODEL, null);
  }

  /** Blocks the router holds for {@code worker} (all ranks). */
  long blocks(String worker) throws Exception {
    Map<?, ?> v = (Map<?, ?>) Json.parse(router.adminGet("/v1/admin/cache-view/" + worker).body());
    return ((Number) v.get("block_count")).longValue();
  }

  /** Blocks per rank of {@code worker}. */
  Map<Long, Long> blocksPerRank(String worker) throws Exception {
    Map<?, ?> v = (Map<?, ?>) Json.parse(router.adminGet("/v1/admin/cache-view/" + worker).body());
    Map<Long, Long> out = new LinkedHashMap<>();
    for (Object o : (List<?>) v.get("ranks")) {
      Map<?, ?> r = (Map<?, ?>) o;
      out.put(((Number) r.get("dp_rank")).longValue(), ((Number) r.get("block_count")).longValue());
    }
    return out;
  }

  /** Whether any rank of {@code worker} is degraded (missed events not recovered). */
  boolean degraded(String worker) throws Exception {
    Map<?, ?> v = (Map<?, ?>) Json.parse(router.adminGet("/v1/admin/cache-view/" + worker).body());
    for (Object o : (List<?>) v.get("ranks")) {
      if (Boolean.TRUE.equals(((Map<?, ?>) o).get("degraded"))) {
        return true;
      }
    }
    return false;
  }

  Map<?, ?> status() throws Exception {
    return (Map<?, ?>) Json.parse(router.adminGet("/v1/admin/status").body());
  }

  /** {@code worker}'s entry in {@code /v1/admin/status}'s workers. */
  @SuppressWarnings("unchecked")
  Map<String, Object> workerStatus(String worker) throws Exception {
    for (Object o : (List<?>) status().get("workers")) {
      if (worker.equals(((Map<?, ?>) o).get("id"))) {
        return (Map<String, Object>) o;
      }
    }
    throw new AssertionError("no worker " + worker + " in /v1/admin/status");
  }

  /** The index's drop counter for {@code reason} (a DropReason label), over all workers. */
  long dropped(String reason) throws Exception {
    Map<?, ?> dropped = (Map<?, ?>) ((Map<?, ?>) status().get("index")).get("dropped");
    Object n = dropped.get(reason);
    return n == null ? 0 : ((Number) n).longValue();
  }

  String metrics() throws Exception {
    return router.adminGet("/metrics").body();
  }

  /** Waits until {@code worker} holds exactly {@code n} blocks, reporting what it saw instead. */
  void awaitBlocks(String worker, long n) {
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .alias(worker + " should hold " + n + " blocks")
        .until(() -> blocks(worker), b -> b == n);
  }

  @Override
  public void close() throws Exception {
    router.close();
    for (StubEngine s : stubs) {
      s.close();
    }
    vertx.close();
  }
}
