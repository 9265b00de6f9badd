package io.infera.sim.eventplane;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.events.nats.NatsSettings;
import io.infera.router.events.nats.NatsTransport;
import io.infera.router.json.Json;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.WorkerId;
import io.infera.router.nats.EventSubjects;
import io.infera.router.nats.JetStreamSetup;
import io.infera.router.relay.Relay;
import io.infera.router.relay.RelayOptions;
import io.infera.router.testing.NatsServer;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.sim.bench.BenchTokenizer;
import io.infera.sim.bench.InJvmRouter;
import io.infera.sim.engine.EngineOptions;
import io.infera.sim.engine.Flavor;
import io.infera.sim.engine.SimEngine;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The production event plane on one machine, for the fault tests: simulated engines (real HTTP,
 * real ZMQ PUB + replay), one {@code infera-router relay} per engine, a real {@code nats-server}
 * with JetStream, and router replicas consuming with {@code events.transport: nats} — each part
 * stoppable and restartable on its own ports and store.
 */
final class EventPlane implements AutoCloseable {

  static final int BLOCK_SIZE = 16;
  static final String PREFIX = EventSubjects.DEFAULT_PREFIX;
  static final String STREAM = "INFERA_KV_IT";
  static final String BUCKET = "infera_kv_it";

  /** How the plane is built. */
  record Spec(int engines, int numBlocks, JetStreamSetup.Limits limits, long snapshotEveryEvents) {
    static Spec of(int engines) {
      return new Spec(engines, 160, JetStreamSetup.Limits.defaults(), 50);
    }

    Spec withLimits(JetStreamSetup.Limits l) {
      return new Spec(engines, numBlocks, l, snapshotEveryEvents);
    }

    Spec withSnapshotEvery(long events) {
      return new Spec(engines, numBlocks, limits, events);
    }

    Spec withNumBlocks(int n) {
      return new Spec(engines, n, limits, snapshotEveryEvents);
    }
  }

  final Spec spec;
  final NatsServer nats;
  final Vertx vertx = Vertx.vertx();
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  final SimEngine[] engines;
  final Relay[] relays;
  final List<InJvmRouter> routers = new ArrayList<>();
  private final EngineOptions[] engineOptions;
  private final PromptTokenizer tokenizer;

  private EventPlane(Spec spec, NatsServer nats) throws Exception {
    this.spec = spec;
    this.nats = nats;
    this.engines = new SimEngine[spec.engines()];
    this.relays = new Relay[spec.engines()];
    this.engineOptions = new EngineOptions[spec.engines()];
    this.tokenizer = BenchTokenizer.qwen3();
  }

  /** nats-server, the engines and their relays (each relay ready). */
  static EventPlane start(Path dir, Spec spec) throws Exception {
    EventPlane p = new EventPlane(spec, NatsServer.start(dir.resolve("nats")));
    try {
      for (int i = 0; i < spec.engines(); i++) {
        p.engineOptions[i] =
            EngineOptions.defaults().toBuilder()
                .flavor(i % 2 == 0 ? Flavor.VLLM : Flavor.VLLM_MAP)
                .blockSize(BLOCK_SIZE)
                .numBlocks(spec.numBlocks())
                .model("sim")
                .speedup(50)
                .hashSeed(7 + i)
                .build();
        p.engines[i] = SimEngine.start(p.engineOptions[i], p.vertx, p.tokenizer);
        // A restarted engine binds the same ports (as a restarted pod keeps its address).
        p.engineOptions[i] =
            p.engineOptions[i].toBuilder()
                .port(p.engines[i].port())
                .zmqPort(port(p.engines[i].zmqEndpoint()))
                .replayPort(port(p.engines[i].replayEndpoint()))
                .build();
      }
      for (int i = 0; i < spec.engines(); i++) {
        p.startRelay(i);
      }
      return p;
    } catch (Exception e) {
      p.close();
      throw e;
    }
  }

  static WorkerId worker(int i) {
    return WorkerId.of("w" + i);
  }

  private static int port(String endpoint) {
    return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
  }

  RelayOptions relayOptions(int i) {
    return RelayOptions.builder(engines[i].zmqEndpoint(), nats.url(), worker(i))
        .replayEndpoint(engines[i].replayEndpoint())
        .blockSize(BLOCK_SIZE)
        .stream(STREAM)
        .snapshotBucket(BUCKET)
        .subjectPrefix(PREFIX)
        .streamLimits(spec.limits())
        .snapshotEveryEvents(spec.snapshotEveryEvents())
        .snapshotEvery(Duration.ofSeconds(1))
        .snapshotMinInterval(Duration.ofMillis(200))
        .reconnectWait(Duration.ofMillis(100))
        .reconnectWaitMax(Duration.ofSeconds(1))
        .build();
  }

  Relay startRelay(int i) throws Exception {
    Relay r = new Relay(relayOptions(i));
    relays[i] = r;
    r.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!r.ready()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("relay " + i + " not ready: " + r.stats());
      }
      Thread.sleep(20);
    }
    return r;
  }

  void stopRelay(int i) {
    relays[i].close();
    relays[i] = null;
  }

  /** Stops engine {@code i} and starts a new one on the same ports: its sequence starts at 0. */
  void restartEngine(int i) throws Exception {
    engines[i].close();
    engines[i] = SimEngine.start(engineOptions[i], vertx, tokenizer);
  }

  /** A router replica, ready (seeded, caught up) within 30 s. */
  InJvmRouter startRouter(boolean shareLoad) throws Exception {
    StringBuilder yaml =
        new StringBuilder("model: sim\npageSize: ")
            .append(BLOCK_SIZE)
            .append("\ntokenizer: {path: 'builtin:qwen3'}\n")
            .append("events:\n  transport: nats\n  nats: {url: '")
            .append(nats.url())
            .append("', stream: ")
            .append(STREAM)
            .append(", subjectPrefix: '")
            .append(PREFIX)
            .append("', snapshotBucket: ")
            .append(BUCKET)
            .append(", shareLoad: ")
            .append(shareLoad)
            .append("}\nlisten: {host: 127.0.0.1, port: 0}\n")
            .append("discovery:\n  healthIntervalMs: 500\n  workers:\n");
    for (int i = 0; i < engines.length; i++) {
      yaml.append("    - {id: ")
          .append(worker(i).value())
          .append(", url: '")
          .append(engines[i].url())
          .append("'}\n");
    }
    RouterConfig cfg = ConfigLoader.parse(yaml.toString());
    InJvmRouter started =
        InJvmRouter.start(
            vertx,
            cfg,
            new NatsTransport(cfg.events().nats(), cfg.pageSize(), natsSettings(spec.limits())));
    routers.add(started);
    return started;
  }

  /** The production defaults with quicker reconnects, and the spec's stream limits. */
  static NatsSettings natsSettings(JetStreamSetup.Limits limits) {
    NatsSettings d = NatsSettings.defaults();
    return new NatsSettings(
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofSeconds(1),
        d.requestTimeout(),
        Duration.ofMillis(500),
        d.stallTimeout(),
        d.holdMessages(),
        d.holdBytes(),
        d.holdTime(),
        d.consumerBatch(),
        limits);
  }

  void stopRouter(InJvmRouter r) {
    routers.remove(r);
    r.close();
  }

  // ---------------------------------------------------------------- traffic

  /**
   * Sends {@code n} completions to engine {@code i} directly (4 at a time): each prompt is one of 6
   * shared 48-token prefixes plus a unique tail of 8-70 tokens, so the cache both hits and evicts.
   */
  void traffic(int i, int n, long seed) throws Exception {
    Random random = new Random(seed);
    Semaphore window = new Semaphore(4);
    List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      int prefix = random.nextInt(6);
      int tail = 8 + random.nextInt(63);
      int[] prompt = new int[48 + tail];
      for (int t = 0; t < 48; t++) {
        prompt[t] = 1000 + prefix * 48 + t;
      }
      for (int t = 48; t < prompt.length; t++) {
        prompt[t] = 2000 + random.nextInt(30_000);
      }
      window.acquire();
      CompletableFuture<HttpResponse<String>> f =
          post(engines[i].url() + "/v1/completions", completion(prompt, 2), Map.of());
      f.whenComplete((r, e) -> window.release());
      sent.add(f);
    }
    for (CompletableFuture<HttpResponse<String>> f : sent) {
      HttpResponse<String> r = f.get(60, TimeUnit.SECONDS);
      if (r.statusCode() != 200) {
        throw new AssertionError("engine answered " + r.statusCode() + ": " + r.body());
      }
    }
  }

  static Map<String, Object> completion(int[] prompt, int maxTokens) {
    Map<String, Object> req = new LinkedHashMap<>();
    req.put("model", "sim");
    req.put("prompt", Arrays.stream(prompt).boxed().toList());
    req.put("max_tokens", maxTokens);
    return req;
  }

  CompletableFuture<HttpResponse<String>> post(
      String url, Map<String, Object> body, Map<String, String> headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(60))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(Json.write(body)));
    headers.forEach(b::header);
    return http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> get(String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  // ---------------------------------------------------------------- truth and views

  /** The engine's true device-cached blocks, as router hashes, sorted. */
  long[] truth(int i) throws Exception {
    Map<?, ?> body = (Map<?, ?>) Json.parse(get(engines[i].url() + "/sim/cache").body());
    List<?> hex = (List<?>) body.get("router_hashes");
    long[] out = new long[hex.size()];
    for (int k = 0; k < out.length; k++) {
      out[k] = Long.parseUnsignedLong((String) hex.get(k), 16);
    }
    Arrays.sort(out);
    return out;
  }

  /** A router's view of worker {@code i}, sorted. */
  static long[] view(InJvmRouter r, int i) {
    // viewHashes is a writer-only read: run it on the index's writer thread.
    long[] v;
    try {
      v =
          r.runtime()
              .ingest()
              .onWriter(index -> index.viewHashes(new SourceId(worker(i), 0)))
              .get(10, java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot read the view of w" + i, e);
    }
    Arrays.sort(v);
    return v;
  }

  /** Every router's view of every engine equals the engine's truth. */
  boolean exact() throws Exception {
    for (int i = 0; i < engines.length; i++) {
      long[] t = truth(i);
      for (InJvmRouter r : routers) {
        if (!Arrays.equals(t, view(r, i))) {
          return false;
        }
      }
    }
    return true;
  }

  /** What differs, for failure messages. */
  String diff() throws Exception {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < engines.length; i++) {
      long[] t = truth(i);
      sb.append("w").append(i).append(": truth ").append(t.length);
      for (InJvmRouter r : routers) {
        sb.append(", router:").append(r.port()).append(' ').append(view(r, i).length);
        sb.append(Arrays.equals(t, view(r, i)) ? " (equal)" : " (differs)");
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  /** Milliseconds until {@link #exact()}; throws with the difference after {@code max}. */
  long awaitExact(Duration max) throws Exception {
    long t0 = System.nanoTime();
    long deadline = t0 + max.toNanos();
    while (!exact()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("views not exact within " + max + ":\n" + diff());
      }
      Thread.sleep(10);
    }
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }

  /** The value of one series in a router's Prometheus scrape (0 when absent). */
  double metric(InJvmRouter r, String series) throws Exception {
    for (String line : get(r.adminUrl() + "/metrics").body().split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1));
      }
    }
    return 0;
  }

  @Override
  public void close() {
    for (InJvmRouter r : List.copyOf(routers)) {
      r.close();
    }
    for (int i = 0; i < relays.length; i++) {
      if (relays[i] != null) {
        relays[i].close();
      }
    }
    for (SimEngine e : engines) {
      if (e != null) {
        e.close();
      }
    }
    try {
      nats.close();
    } catch (Exception e) {
      // the test's own failure, if any, says more
    }
    vertx.close();
  }
}
