package io.infera.sim.engine;

import io.infera.router.tokenize.PromptTokenizer;
import io.infera.sim.sched.EngineCore;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.ZContext;

/**
 * A GPU-free stand-in for a vLLM or SGLang server: vLLM's OpenAI HTTP API in front of one simulated
 * scheduler and prefix-caching KV cache per data-parallel rank, publishing real KV events over ZMQ
 * in the chosen engine's wire format.
 *
 * <p>Threads: the HTTP server on a Vert.x event loop (shared or owned), a worker pool {@code
 * sim-tokenize-<port>} for parsing and tokenization, one engine loop {@code
 * sim-engine-<port>-r<rank>} per rank (the only thread touching that rank's core), and one
 * publisher thread {@code sim-kv-<zmqPort>} per rank (the only thread touching its PUB and replay
 * sockets).
 */
public final class SimEngine implements AutoCloseable {

  /** Qwen3's {@code max_position_embeddings}; the cache capacity lowers it further. */
  public static final int MAX_MODEL_LEN = 40_960;

  private static final Logger log = LoggerFactory.getLogger(SimEngine.class);
  private static final AtomicInteger IDS = new AtomicInteger();

  private final EngineOptions options;
  private final Vertx vertx;
  private final boolean ownsVertx;
  private final PromptTokenizer tokenizer;
  private final boolean ownsTokenizer;
  private final ZContext zmq;
  private final List<KvEventPublisher> publishers;
  private final List<EngineLoop> loops;
  private final WorkerExecutor workers;
  private final HttpServer server;
  private final int port;
  private final String connectHost;
  private boolean closed;

  private SimEngine(
      EngineOptions options,
      Vertx vertx,
      boolean ownsVertx,
      PromptTokenizer tokenizer,
      boolean ownsTokenizer,
      ZContext zmq,
      List<KvEventPublisher> publishers,
      List<EngineLoop> loops,
      WorkerExecutor workers,
      HttpServer server,
      String connectHost) {
    this.options = options;
    this.vertx = vertx;
    this.ownsVertx = ownsVertx;
    this.tokenizer = tokenizer;
    this.ownsTokenizer = ownsTokenizer;
    this.zmq = zmq;
    this.publishers = publishers;
    this.loops = loops;
    this.workers = workers;
    this.server = server;
    this.port = server.actualPort();
    this.connectHost = connectHost;
  }

  /**
   * Binds the HTTP server and (unless {@code zmqPort} is -1) the KV-event sockets, and starts the
   * engine loops. Blocks until the server listens.
   *
   * @param vertx the Vert.x instance to serve on, or null to create (and later close) one
   * @param shared a tokenizer to share with other engines in this JVM (not closed by this engine),
   *     or null to load {@code o.tokenizer()}
   * @throws PortInUseException when a fixed port (HTTP, KV events, replay) is taken
   * @throws Exception when the tokenizer cannot be loaded or a port cannot be bound
   */
  public static SimEngine start(EngineOptions o, Vertx vertx, PromptTokenizer shared)
      throws Exception {
    PromptTokenizer tokenizer =
        shared != null
            ? shared
            : PromptTokenizer.load(o.tokenizer(), PromptTokenizer.Options.defaults());
    boolean ownsVertx = vertx == null;
    Vertx vx = ownsVertx ? Vertx.vertx() : vertx;
    String connectHost = isWildcard(o.host()) ? "127.0.0.1" : o.host();
    ZContext zmq = null;
    List<KvEventPublisher> publishers = List.of();
    List<EngineLoop> loops = new ArrayList<>();
    WorkerExecutor workers = null;
    try {
      AnswerVocabulary vocabulary = AnswerVocabulary.build(tokenizer);
      int maxModelLen = (int) Math.min(MAX_MODEL_LEN, (long) o.numBlocks() * o.blockSize());
      RequestParser parser =
          new RequestParser(tokenizer, o.model(), maxModelLen, o.divergentTemplate());
      if (o.publishesEvents()) {
        zmq = new ZContext(1);
        zmq.setLinger(0);
        publishers =
            KvEventPublisher.start(
                zmq,
                kvBindHost(o),
                o.kvEventsHost() == null || isWildcard(o.kvEventsHost())
                    ? connectHost
                    : o.kvEventsHost(),
                o.publishersConnect(),
                o.zmqPort(),
                o.hasReplay() ? o.replayPort() : -1,
                o.dpSize(),
                o.topic());
      }
      for (int r = 0; r < o.dpSize(); r++) {
        loops.add(new EngineLoop(r, o, publishers.isEmpty() ? null : publishers.get(r)));
      }
      int id = IDS.incrementAndGet();
      workers =
          vx.createSharedWorkerExecutor(
              "sim-tokenize-" + id, Math.max(2, Runtime.getRuntime().availableProcessors()));
      EngineHttp http = new EngineHttp(o, parser, vocabulary, loops, workers);
      HttpServer server;
      try {
        server =
            vx.createHttpServer(new HttpServerOptions().setTcpNoDelay(true))
                .requestHandler(http.router(vx))
                .listen(o.port(), o.host())
                .toCompletionStage()
                .toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (o.port() != 0 && PortInUseException.isAddressInUse(e)) {
          throw new PortInUseException(o.port(), "HTTP", e.getCause());
        }
        throw e;
      }
      for (EngineLoop l : loops) {
        l.start("sim-engine-" + server.actualPort() + "-r" + l.rank());
      }
      SimEngine engine =
          new SimEngine(
              o,
              vx,
              ownsVertx,
              tokenizer,
              shared == null,
              zmq,
              publishers,
              List.copyOf(loops),
              workers,
              server,
              connectHost);
      log.info(
          "sim engine started url={} zmq={} replay={} flavor={} dp={} blocks={}x{} speedup={}",
          engine.url(),
          engine.zmqEndpoint(),
          engine.replayEndpoint(),
          o.flavor(),
          o.dpSize(),
          o.numBlocks(),
          o.blockSize(),
          o.speedup());
      return engine;
    } catch (Exception | Error e) {
      loops.forEach(EngineLoop::close);
      publishers.forEach(KvEventPublisher::close);
      if (zmq != null) {
        zmq.close();
      }
      if (workers != null) {
        workers.close();
      }
      if (ownsVertx) {
        vx.close();
      }
      if (shared == null) {
        tokenizer.close();
      }
      throw e;
    }
  }

  private static boolean isWildcard(String host) {
    return EngineOptions.isWildcard(host);
  }

  /** The KV-event sockets' address: {@code kvEventsHost}, else {@code host}; a wildcard as *. */
  private static String kvBindHost(EngineOptions o) {
    String h = o.kvEventsHost() != null ? o.kvEventsHost() : o.host();
    return isWildcard(h) ? "*" : h;
  }

  /** The HTTP base URL, e.g. {@code http://127.0.0.1:8000}. */
  public String url() {
    return "http://" + connectHost + ":" + port;
  }

  public int port() {
    return port;
  }

  /** Rank 0's KV-event endpoint ({@code tcp://host:port}; rank r is port + r), or null. */
  public String zmqEndpoint() {
    return publishers.isEmpty() ? null : publishers.get(0).endpoint();
  }

  /** Rank 0's replay endpoint (rank r is port + r), or null without one. */
  public String replayEndpoint() {
    return publishers.isEmpty() ? null : publishers.get(0).replayEndpoint();
  }

  /**
   * A rank's core. It belongs to the rank's engine loop thread: read it only while the engine is
   * idle, or use {@link #inspect}.
   */
  public EngineCore core(int rank) {
    return loops.get(rank).core();
  }

  /** Runs {@code f} on the rank's engine loop between steps (where reading the core is safe). */
  public <T> CompletableFuture<T> inspect(int rank, Function<EngineCore, T> f) {
    return loops.get(rank).call(f);
  }

  /** The rank's latest counters (published after every engine step). Any thread. */
  public EngineCore.Stats stats(int rank) {
    return loops.get(rank).stats();
  }

  /**
   * How far the engine clock slipped: simulated ms of lateness per simulated ms of step time, the
   * worst rank. Above a few percent the host cannot keep up with {@code --speedup} and latencies
   * include host overhead scaled by it.
   */
  public double clockSlip() {
    double worst = 0;
    for (EngineLoop l : loops) {
      worst = Math.max(worst, l.clockSlip());
    }
    return worst;
  }

  public int dpSize() {
    return loops.size();
  }

  /** A short name for logs: {@code sim-<flavor>-<port>}. */
  public String name() {
    return "sim-" + options.flavor().cliName() + "-" + port;
  }

  public EngineOptions options() {
    return options;
  }

  /** Stops serving, the engine loops and the publishers; idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.warn("sim engine http close failed name={} error={}", name(), e.toString());
    }
    // Loops first: each owns its publisher's PUSH socket.
    loops.forEach(EngineLoop::close);
    publishers.forEach(KvEventPublisher::close);
    if (zmq != null) {
      zmq.close();
    }
    workers.close();
    if (ownsVertx) {
      try {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        log.warn("sim engine vertx close failed name={} error={}", name(), e.toString());
      }
    }
    if (ownsTokenizer) {
      tokenizer.close();
    }
    log.info("sim engine closed name={}", name());
  }
}
