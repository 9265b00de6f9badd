package io.infera.sim.bench;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.router.config.Role;
import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.Discovery;
import io.infera.router.discovery.StaticDiscovery;
import io.infera.router.events.EventTransport;
import io.infera.router.events.zmq.ZmqTransport;
import io.infera.router.http.RouterServer;
import io.infera.router.json.Json;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.Booking;
import io.infera.router.policy.Decision;
import io.infera.router.policy.LoadTracker;
import io.infera.router.policy.Overlap;
import io.infera.router.policy.RoutingPolicy;
import io.infera.router.policy.Worker;
import io.infera.router.runtime.RouterRuntime;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.TokenizerSource;
import io.infera.sim.bench.report.RequestResult;
import io.infera.sim.engine.EngineOptions;
import io.infera.sim.engine.Flavor;
import io.infera.sim.engine.SimEngine;
import io.infera.sim.workload.Session;
import io.infera.sim.workload.Turn;
import io.infera.sim.workload.Workload;
import io.vertx.core.Vertx;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The live driver: simulated engines (real HTTP servers and ZMQ publishers on loopback) behind the
 * real router ({@link RouterRuntime} + {@link RouterServer}, zmq transport, static discovery), in
 * this JVM, fresh for every arm and seed. Requests are {@code /v1/completions} with token-id
 * prompts, streamed, so TTFT is the first SSE chunk; the engines' clocks run {@code speedup} times
 * faster and reported times are in simulated milliseconds (wall × speedup). The oracle arm bypasses
 * the router and picks by the engines' true caches.
 */
public final class LiveCluster {

  private static PromptTokenizer tokenizer;

  private LiveCluster() {}

  /** The shared tokenizer (vendored Qwen3), loaded once per JVM. */
  public static synchronized PromptTokenizer tokenizer() throws Exception {
    if (tokenizer == null) {
      tokenizer =
          PromptTokenizer.load(
              new TokenizerSource.Builtin("qwen3"), PromptTokenizer.Options.defaults());
    }
    return tokenizer;
  }

  /** Which OpenAI endpoint the load generator uses. */
  public enum Api {
    /** {@code /v1/completions} with token-id prompts (exact token accounting; supports oracle). */
    COMPLETIONS,
    /**
     * {@code /v1/chat/completions} with OpenAI messages: the router renders the chat template and
     * tokenizes like a production deployment (no oracle: it would need the engines' rendering).
     */
    CHAT
  }

  /** Progress of one run: requests answered (or skipped after a failed turn) of the total. */
  public interface Listener {
    void requestDone(Arm arm, int seed, int done, int total);
  }

  public static BenchRunner.Driver driver(FleetSpec fleet, double speedup) {
    return driver(fleet, speedup, Api.COMPLETIONS, null);
  }

  public static BenchRunner.Driver driver(
      FleetSpec fleet, double speedup, Api api, Listener listener) {
    if (!(speedup > 0)) {
      throw new IllegalArgumentException("speedup must be > 0");
    }
    return (arm, seed, workload) -> {
      warmUp(fleet, speedup, api);
      return run(fleet, speedup, api, listener, arm, seed, workload);
    };
  }

  private static final Object WARM_LOCK = new Object();
  private static boolean warm;

  /**
   * Once per JVM, before the first measured run: the same stack on a short workload, results
   * discarded, so the first arm is not measured on a cold JIT (which, × speedup, would cost it
   * seconds of simulated latency).
   */
  static void warmUp(FleetSpec fleet, double speedup, Api api) throws Exception {
    // Not the class monitor: the warm-up's own requests call tokenizer(), which takes that.
    synchronized (WARM_LOCK) {
      if (warm) {
        return;
      }
      warm = true;
    }
    io.infera.sim.workload.Workload w =
        new io.infera.sim.workload.MultiTurnWorkload(
            new io.infera.sim.workload.MultiTurnWorkload.Config(
                6 * fleet.workers(),
                3,
                256,
                256,
                64,
                32,
                100,
                io.infera.sim.workload.MultiTurnWorkload.ThinkTime.FIXED,
                io.infera.sim.workload.Arrivals.poisson(10.0 * fleet.workers()),
                0));
    run(fleet, speedup, api, null, Arm.policy(PolicyName.KV_AWARE), 0, w);
  }

  /** A fleet of engines plus (for policy arms) a router, torn down after the run. */
  public static final class Stack implements AutoCloseable {
    public final Vertx vertx = Vertx.vertx();
    public final List<SimEngine> engines = new ArrayList<>();
    public RouterRuntime runtime;
    public RouterServer server;
    public int routerPort;

    @Override
    public void close() {
      if (server != null) {
        server.close();
      }
      if (runtime != null) {
        runtime.close();
      }
      for (SimEngine e : engines) {
        e.close();
      }
      vertx.close();
    }
  }

  /** A router started in this JVM: its runtime, HTTP server and port. */
  public record InJvmRouter(RouterRuntime runtime, RouterServer server, int port)
      implements AutoCloseable {
    public String url() {
      return "http://127.0.0.1:" + port;
    }

    @Override
    public void close() {
      server.close();
      runtime.close();
    }
  }

  /**
   * Starts the real router on {@code cfg} with static discovery, {@code transport} and the shared
   * tokenizer, and waits (30 s at most) until it is ready.
   */
  public static InJvmRouter startRouter(Vertx vertx, RouterConfig cfg, EventTransport transport)
      throws Exception {
    RouterRuntime runtime =
        RouterRuntime.start(
            cfg,
            new RouterRuntime.Parts() {
              @Override
              public Discovery discovery(RouterConfig c) {
                return new StaticDiscovery(c.discovery().workers());
              }

              @Override
              public EventTransport transport(RouterConfig c) {
                return transport;
              }

              @Override
              public PromptTokenizer tokenizer(RouterConfig c) throws Exception {
                return LiveCluster.tokenizer();
              }

              @Override
              public boolean ownsTokenizer() {
                return false;
              }
            });
    RouterServer server = new RouterServer(vertx, runtime);
    try {
      int port = server.start().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!runtime.notReadyReasons().isEmpty()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("router not ready: " + runtime.notReadyReasons());
        }
        Thread.sleep(20);
      }
      return new InJvmRouter(runtime, server, port);
    } catch (Exception e) {
      server.close();
      runtime.close();
      throw e;
    }
  }

  /** Starts {@code fleet.workers()} engines and, unless {@code policy} is null, the router. */
  public static Stack start(FleetSpec fleet, double speedup, int seed, PolicyConfig policy)
      throws Exception {
    Stack stack = new Stack();
    try {
      for (int i = 0; i < fleet.workers(); i++) {
        EngineOptions o =
            EngineOptions.defaults().toBuilder()
                .flavor(Flavor.VLLM_MAP)
                .blockSize(fleet.blockSize())
                .numBlocks(fleet.blocksPerWorker())
                .model("sim")
                .speedup(speedup)
                .hashSeed(1000L * seed + i)
                .maxNumSeqs(fleet.engine().maxNumSeqs())
                .maxNumBatchedTokens(fleet.engine().maxNumBatchedTokens())
                .build();
        stack.engines.add(SimEngine.start(o, stack.vertx, tokenizer()));
      }
      if (policy != null) {
        StringBuilder yaml =
            new StringBuilder("model: sim\npageSize: ")
                .append(fleet.blockSize())
                .append("\ntokenizer: {path: 'builtin:qwen3'}\nevents: {transport: zmq}\n")
                .append("policy: {name: ")
                .append(policy.name().wireName())
                .append(", overlapWeight: ")
                .append(policy.overlapWeight())
                .append(
                    "}\nlisten: {host: 127.0.0.1, port: 0}\nlimits: {firstByteTimeoutMs: 600000}\n")
                .append("discovery:\n  healthIntervalMs: 1000\n  workers:\n");
        for (int i = 0; i < stack.engines.size(); i++) {
          SimEngine e = stack.engines.get(i);
          yaml.append("    - {id: w")
              .append(i)
              .append(", url: '")
              .append(e.url())
              .append("', zmq: '")
              .append(e.zmqEndpoint())
              .append("'")
              .append(e.replayEndpoint() == null ? "" : ", zmqReplay: '" + e.replayEndpoint() + "'")
              .append("}\n");
        }
        RouterConfig cfg = ConfigLoader.parse(yaml.toString());
        InJvmRouter router = startRouter(stack.vertx, cfg, new ZmqTransport());
        stack.runtime = router.runtime();
        stack.server = router.server();
        stack.routerPort = router.port();
      }
      return stack;
    } catch (Exception e) {
      stack.close();
      throw e;
    }
  }

  static VirtualCluster.Run run(
      FleetSpec fleet,
      double speedup,
      Api api,
      Listener listener,
      Arm arm,
      int seed,
      Workload workload)
      throws Exception {
    if (arm.isOracle() && api == Api.CHAT) {
      throw new IllegalArgumentException("the oracle arm needs token-id prompts (completions)");
    }
    PolicyConfig pc = fleet.policy(arm.policy());
    try (Stack stack = start(fleet, speedup, seed, arm.isOracle() ? null : pc)) {
      return new Load(stack, fleet, speedup, api, listener, arm, seed).run(workload);
    }
  }

  /** Sends a workload and measures it. */
  static final class Load {
    final Stack stack;
    final FleetSpec fleet;
    final double speedup;
    final Api api;
    final Listener listener;
    final Arm arm;
    final int seed;
    final HttpClient http;
    final java.util.concurrent.atomic.AtomicInteger done =
        new java.util.concurrent.atomic.AtomicInteger();
    int total;
    final ExecutorService pool = Executors.newCachedThreadPool();
    final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
    final List<RequestResult> results = Collections.synchronizedList(new ArrayList<>());
    final LoadTracker oracleLoad = new LoadTracker();
    final RoutingPolicy oracle;
    final BlockHasher hasher;
    long t0;

    Load(
        Stack stack,
        FleetSpec fleet,
        double speedup,
        Api api,
        Listener listener,
        Arm arm,
        int seed) {
      this.stack = stack;
      this.fleet = fleet;
      this.speedup = speedup;
      this.api = api;
      this.listener = listener;
      this.arm = arm;
      this.seed = seed;
      this.hasher = new BlockHasher(fleet.blockSize());
      this.oracle = RoutingPolicy.of(fleet.policy(io.infera.router.config.PolicyName.KV_AWARE));
      this.http =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .executor(pool)
              .connectTimeout(Duration.ofSeconds(10))
              .build();
    }

    VirtualCluster.Run run(Workload workload) throws Exception {
      List<Session> sessions = workload.sessions();
      for (Session s : sessions) {
        total += s.turns().size();
      }
      CountDownLatch finished = new CountDownLatch(sessions.size());
      t0 = System.nanoTime();
      for (Session s : sessions) {
        Conversation c = new Conversation(s, finished);
        timer.schedule(() -> turn(c), (long) (s.startMs() / speedup * 1000), TimeUnit.MICROSECONDS);
      }
      try {
        if (!finished.await(30, TimeUnit.MINUTES)) {
          throw new IllegalStateException("benchmark run did not finish within 30 minutes");
        }
      } finally {
        timer.shutdownNow();
        pool.shutdownNow();
      }
      double simMs = (System.nanoTime() - t0) / 1e6 * speedup;
      double slip = 0;
      for (SimEngine e : stack.engines) {
        slip = Math.max(slip, e.clockSlip());
      }
      return new VirtualCluster.Run(List.copyOf(results), Math.max(1, simMs), slip);
    }

    /** One session's progress: its token context (completions) or its answers (chat). */
    final class Conversation {
      final Session session;
      final CountDownLatch finished;
      final List<Integer> context = new ArrayList<>();
      final List<String> answers = new ArrayList<>();
      int turn;

      Conversation(Session session, CountDownLatch finished) {
        this.session = session;
        this.finished = finished;
        for (int t : session.systemTokens()) {
          context.add(t);
        }
      }
    }

    private void progress(int n) {
      int d = done.addAndGet(n);
      if (listener != null) {
        listener.requestDone(arm, seed, d, total);
      }
    }

    private double simNow() {
      return (System.nanoTime() - t0) / 1e6 * speedup;
    }

    private void turn(Conversation c) {
      Turn turn = c.session.turns().get(c.turn);
      for (int t : turn.userTokens()) {
        c.context.add(t);
      }
      pool.execute(
          () -> {
            RequestResult r = send(c, turn.outputTokens());
            results.add(r);
            c.turn++;
            if (c.turn < c.session.turns().size() && !r.error()) {
              progress(1);
              double think = c.session.turns().get(c.turn).thinkMs();
              timer.schedule(() -> turn(c), (long) (think / speedup * 1000), TimeUnit.MICROSECONDS);
            } else {
              // A failed turn ends the conversation, as a client would stop.
              progress(1 + c.session.turns().size() - c.turn);
              c.finished.countDown();
            }
          });
    }

    private RequestResult send(Conversation c, int maxTokens) {
      Session s = c.session;
      int k = c.turn;
      int[] prompt = c.context.stream().mapToInt(Integer::intValue).toArray();
      String url;
      String worker = null;
      Booking booking = null;
      if (arm.isOracle()) {
        long[] hashes = hasher.requestHashes(prompt, 0);
        List<Worker> candidates = new ArrayList<>();
        List<CompletableFuture<Integer>> truth = new ArrayList<>();
        for (int i = 0; i < stack.engines.size(); i++) {
          candidates.add(new Worker(WorkerId.of("w" + i), Role.MIXED));
          truth.add(
              stack
                  .engines
                  .get(i)
                  .inspect(0, core -> core.blocks().cachedPrefixBlocks(prompt, null)));
        }
        Map<WorkerId, Integer> hits = new HashMap<>();
        for (int i = 0; i < candidates.size(); i++) {
          hits.put(candidates.get(i).id(), Math.min(hashes.length, trueHits(truth.get(i))));
        }
        Decision d =
            oracle.select(
                candidates, new Overlap(hashes.length, hits), oracleLoad.snapshot(candidates));
        worker = d.winner().value();
        booking = oracleLoad.book(d.winner(), hashes, hashes.length - d.winnerScore().hits());
        url = stack.engines.get(Integer.parseInt(worker.substring(1))).url();
      } else {
        url = "http://127.0.0.1:" + stack.routerPort;
      }
      // After the oracle's decision: asking every engine waits for their steps to end, a cost of
      // the simulation that a request should not be charged.
      double sent = simNow();
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("model", "sim");
      String path;
      if (api == Api.CHAT) {
        path = "/v1/chat/completions";
        body.put("messages", s.messages(k, c.answers));
      } else {
        path = "/v1/completions";
        List<Integer> ids = new ArrayList<>(prompt.length);
        for (int t : prompt) {
          ids.add(t);
        }
        body.put("prompt", ids);
      }
      body.put("max_tokens", maxTokens);
      body.put("stream", true);
      body.put("stream_options", Map.of("include_usage", true));
      HttpRequest req =
          HttpRequest.newBuilder(URI.create(url + path))
              .timeout(Duration.ofMinutes(10))
              .header("content-type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(Json.write(body)))
              .build();
      try {
        HttpResponse<InputStream> resp = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
        if (worker == null) {
          worker = resp.headers().firstValue("x-infera-worker").orElse(null);
        }
        if (resp.statusCode() != 200) {
          resp.body().close();
          String kind =
              resp.statusCode() == 429 || resp.statusCode() == 503
                  ? RequestResult.REJECTED
                  : "http_" + resp.statusCode();
          return RequestResult.failed(arm.name(), seed, s.id(), k, worker, sent, kind);
        }
        Stream stream = readStream(resp.body());
        double end = simNow();
        if (api == Api.CHAT) {
          c.answers.add(stream.answer.toString());
        } else {
          for (int t : tokenizer().encodeRendered(stream.answer.toString())) {
            c.context.add(t);
          }
        }
        return RequestResult.ok(
            arm.name(),
            seed,
            s.id(),
            k,
            worker,
            sent,
            (stream.firstMs < 0 ? end : stream.firstMs) - sent,
            end - sent,
            stream.itl,
            stream.promptTokens < 0 ? prompt.length : stream.promptTokens,
            stream.cachedTokens,
            stream.completionTokens);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return RequestResult.failed(arm.name(), seed, s.id(), k, worker, sent, "interrupted");
      } catch (Exception e) {
        return RequestResult.failed(
            arm.name(),
            seed,
            s.id(),
            k,
            worker,
            sent,
            "exception: " + e.getClass().getSimpleName());
      } finally {
        if (booking != null) {
          booking.release();
        }
      }
    }

    /** What one streamed answer carried. */
    final class Stream {
      double firstMs = -1;
      double lastMs = -1;
      final List<Double> itl = new ArrayList<>();
      final StringBuilder answer = new StringBuilder();
      int promptTokens = -1;
      int cachedTokens;
      int completionTokens;
    }

    private Stream readStream(InputStream body) throws Exception {
      Stream st = new Stream();
      try (BufferedReader in =
          new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          if (!line.startsWith("data: ") || line.equals("data: [DONE]")) {
            continue;
          }
          if (!(Json.parse(line.substring(6)) instanceof Map<?, ?> chunk)) {
            continue;
          }
          if (chunk.get("usage") instanceof Map<?, ?> u) {
            st.promptTokens = intOf(u.get("prompt_tokens"));
            st.completionTokens = intOf(u.get("completion_tokens"));
            if (u.get("prompt_tokens_details") instanceof Map<?, ?> d) {
              st.cachedTokens = intOf(d.get("cached_tokens"));
            }
          }
          String text = textOf(chunk);
          if (text != null && !text.isEmpty()) {
            double now = simNow();
            if (st.firstMs < 0) {
              st.firstMs = now;
            } else {
              st.itl.add(now - st.lastMs);
            }
            st.lastMs = now;
            st.answer.append(text);
          }
        }
      }
      return st;
    }

    /**
     * The text of a completions ({@code choices[0].text}) or chat ({@code delta.content}) chunk.
     */
    private static String textOf(Map<?, ?> chunk) {
      if (!(chunk.get("choices") instanceof List<?> choices)
          || choices.isEmpty()
          || !(choices.get(0) instanceof Map<?, ?> c0)) {
        return null;
      }
      if (c0.get("text") instanceof String t) {
        return t;
      }
      if (c0.get("delta") instanceof Map<?, ?> delta && delta.get("content") instanceof String t) {
        return t;
      }
      return null;
    }

    private static int intOf(Object o) {
      return o instanceof Number n ? n.intValue() : 0;
    }

    /** The engine's true cached prefix, in blocks (0 if it cannot say in time). */
    private static int trueHits(CompletableFuture<Integer> answer) {
      try {
        return answer.get(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 0;
      } catch (Exception e) {
        return 0;
      }
    }
  }
}
