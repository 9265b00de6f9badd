package io.infera.router.config;

import io.infera.router.nats.NatsAuth;
import io.infera.router.tokenize.TemplateBudget;
import java.util.List;

/**
 * The operator → router contract (docs/contracts.md, "RouterConfig"), after defaults and
 * validation.
 *
 * @param model the served model name (requests for another model get 404)
 * @param loraAdapters LoRA adapter names the engines serve as extra models
 * @param pageSize the fleet's one KV block size
 * @param engineLoad engine-reported load ({@code policy.engineLoad.*}); null = defaults
 * @param decodeDemand decode input-demand routing ({@code policy.decodeInputDemand} and its
 *     companions); null = defaults (off)
 * @param multimodal image affinity ({@code policy.multimodal.*}); null = defaults
 * @param sessionAffinity session affinity ({@code policy.sessionAffinity.*}); null = defaults (off)
 */
public record RouterConfig(
    String model,
    List<String> loraAdapters,
    int pageSize,
    Tokenizer tokenizer,
    PolicyConfig policy,
    Events events,
    Discovery discovery,
    Limits limits,
    Listen listen,
    Index index,
    ServerLimits server,
    Admin admin,
    EngineLoadConfig engineLoad,
    DecodeDemandConfig decodeDemand,
    MultimodalConfig multimodal,
    SessionAffinityConfig sessionAffinity) {

  public RouterConfig {
    loraAdapters = List.copyOf(loraAdapters);
    index = index == null ? Index.defaults() : index;
    engineLoad = engineLoad == null ? EngineLoadConfig.DEFAULTS : engineLoad;
    decodeDemand = decodeDemand == null ? DecodeDemandConfig.DEFAULTS : decodeDemand;
    multimodal = multimodal == null ? MultimodalConfig.DEFAULTS : multimodal;
    sessionAffinity = sessionAffinity == null ? SessionAffinityConfig.DEFAULTS : sessionAffinity;
  }

  /**
   * A config with decode input demand (off), image affinity and session affinity (off) at their
   * defaults.
   */
  public RouterConfig(
      String model,
      List<String> loraAdapters,
      int pageSize,
      Tokenizer tokenizer,
      PolicyConfig policy,
      Events events,
      Discovery discovery,
      Limits limits,
      Listen listen,
      Index index,
      ServerLimits server,
      Admin admin,
      EngineLoadConfig engineLoad) {
    this(
        model,
        loraAdapters,
        pageSize,
        tokenizer,
        policy,
        events,
        discovery,
        limits,
        listen,
        index,
        server,
        admin,
        engineLoad,
        null,
        null,
        null);
  }

  /** The same config with other session affinity settings. */
  public RouterConfig withSessionAffinity(SessionAffinityConfig s) {
    return new RouterConfig(
        model,
        loraAdapters,
        pageSize,
        tokenizer,
        policy,
        events,
        discovery,
        limits,
        listen,
        index,
        server,
        admin,
        engineLoad,
        decodeDemand,
        multimodal,
        s);
  }

  /** A config with engine-reported load at its defaults. */
  public RouterConfig(
      String model,
      List<String> loraAdapters,
      int pageSize,
      Tokenizer tokenizer,
      PolicyConfig policy,
      Events events,
      Discovery discovery,
      Limits limits,
      Listen listen,
      Index index,
      ServerLimits server,
      Admin admin) {
    this(
        model,
        loraAdapters,
        pageSize,
        tokenizer,
        policy,
        events,
        discovery,
        limits,
        listen,
        index,
        server,
        admin,
        (EngineLoadConfig) null);
  }

  /** A config with the index limits, the HTTP server limits and the admin listener at defaults. */
  public RouterConfig(
      String model,
      List<String> loraAdapters,
      int pageSize,
      Tokenizer tokenizer,
      PolicyConfig policy,
      Events events,
      Discovery discovery,
      Limits limits,
      Listen listen) {
    this(
        model,
        loraAdapters,
        pageSize,
        tokenizer,
        policy,
        events,
        discovery,
        limits,
        listen,
        null,
        ServerLimits.DEFAULTS,
        Admin.defaultsFor(listen));
  }

  /** How the router tokenizes: {@code local} (its own tokenizer) or {@code engine}. */
  public enum TokenizerMode {
    LOCAL,
    ENGINE
  }

  /**
   * @param path a directory, tokenizer.json, hub id or {@code builtin:NAME}; null with mode engine
   * @param prefixReuse multi-turn prefix reuse of token ids
   * @param revision the hub revision (branch, tag or commit) looked up in the local cache; null
   *     means {@code main}
   * @param parity render parity probing ({@code tokenizer.parity.*}); null = defaults
   */
  public record Tokenizer(
      String path, TokenizerMode mode, boolean prefixReuse, String revision, ParityConfig parity) {
    public Tokenizer {
      parity = parity == null ? ParityConfig.DEFAULTS : parity;
    }

    /** Render parity at its defaults. */
    public Tokenizer(String path, TokenizerMode mode, boolean prefixReuse, String revision) {
      this(path, mode, prefixReuse, revision, null);
    }

    public Tokenizer(String path, TokenizerMode mode, boolean prefixReuse) {
      this(path, mode, prefixReuse, null);
    }
  }

  /** {@code zmq}, {@code inproc} or {@code nats}. */
  public enum Transport {
    ZMQ,
    INPROC,
    NATS
  }

  /**
   * @param inprocBus name of the in-JVM bus ({@code inproc} transport)
   */
  public record Events(Transport transport, Nats nats, String inprocBus) {}

  /**
   * @param shareLoad whether replicas share their in-flight load per worker on the core subject
   *     {@code <subjectPrefix's first token>.load} (default true; off only to compare)
   * @param outageReadyAfterMs a router that cannot read NATS (unreachable, or the stream not
   *     readable) is ready after this long without its index and routes by load (0: at once)
   * @param auth credentials and TLS ({@code events.nats.auth.*}, {@code events.nats.tls.*}); {@link
   *     NatsAuth#NONE} when none is configured
   */
  public record Nats(
      String url,
      String stream,
      String subjectPrefix,
      String snapshotBucket,
      boolean shareLoad,
      long outageReadyAfterMs,
      NatsAuth auth) {

    /** Default for {@link #outageReadyAfterMs()}. */
    public static final long DEFAULT_OUTAGE_READY_AFTER_MS = 5_000;

    public Nats {
      auth = auth == null ? NatsAuth.NONE : auth;
    }

    /** With the default outage delay. */
    public Nats(
        String url,
        String stream,
        String subjectPrefix,
        String snapshotBucket,
        boolean shareLoad,
        NatsAuth auth) {
      this(
          url,
          stream,
          subjectPrefix,
          snapshotBucket,
          shareLoad,
          DEFAULT_OUTAGE_READY_AFTER_MS,
          auth);
    }

    /** Anonymous, without TLS, with the default outage delay. */
    public Nats(
        String url, String stream, String subjectPrefix, String snapshotBucket, boolean shareLoad) {
      this(
          url,
          stream,
          subjectPrefix,
          snapshotBucket,
          shareLoad,
          DEFAULT_OUTAGE_READY_AFTER_MS,
          NatsAuth.NONE);
    }
  }

  /** {@code static} or {@code kubernetes}. */
  public enum Backend {
    STATIC,
    KUBERNETES
  }

  /**
   * @param namespace namespace of the pools' Services (kubernetes; null = the client's default)
   * @param healthIntervalMs how often static workers are probed ({@code GET /health})
   */
  public record Discovery(
      Backend backend,
      String namespace,
      List<Pool> pools,
      List<StaticWorker> workers,
      long healthIntervalMs) {
    public Discovery {
      pools = List.copyOf(pools);
      workers = List.copyOf(workers);
    }
  }

  /**
   * A worker pool behind a headless Service (kubernetes backend).
   *
   * @param port the engine's HTTP port
   * @param zmqPort the engine's KV-event PUB port (zmq transport), or 0
   * @param zmqReplayPort the engine's replay port, or 0
   */
  public record Pool(
      String name,
      Role role,
      String engine,
      String service,
      int port,
      int zmqPort,
      int zmqReplayPort,
      int dpSize) {}

  /**
   * A worker listed in the config (static backend).
   *
   * @param pool the pool its relay publishes under ({@code static} unless set): events of the
   *     worker on another pool's subjects are dropped
   */
  public record StaticWorker(
      String id,
      String url,
      Role role,
      String engine,
      String zmq,
      String zmqReplay,
      int dpSize,
      String pool) {}

  /**
   * @param maxBodyBytes request bodies above this get 413
   * @param retries extra attempts on another worker when one fails before the first byte
   * @param connectTimeoutMs TCP connect timeout to a worker
   * @param firstByteTimeoutMs time to the first response byte before the attempt fails
   * @param shutdownTimeoutMs how long graceful shutdown waits for in-flight requests
   * @param breakerFailures consecutive faults that open a worker's breaker
   * @param breakerCooldownMs first open period; doubles up to {@code breakerMaxCooldownMs}
   * @param analysis the tokenization budget and the global analysis budget
   * @param template the chat-template render budget ({@code limits.template*})
   */
  public record Limits(
      long maxBodyBytes,
      int retries,
      long connectTimeoutMs,
      long firstByteTimeoutMs,
      long shutdownTimeoutMs,
      int breakerFailures,
      long breakerCooldownMs,
      long breakerMaxCooldownMs,
      Analysis analysis,
      TemplateBudget template) {

    /** Limits with the default analysis and template budgets. */
    public Limits(
        long maxBodyBytes,
        int retries,
        long connectTimeoutMs,
        long firstByteTimeoutMs,
        long shutdownTimeoutMs,
        int breakerFailures,
        long breakerCooldownMs,
        long breakerMaxCooldownMs) {
      this(
          maxBodyBytes,
          retries,
          connectTimeoutMs,
          firstByteTimeoutMs,
          shutdownTimeoutMs,
          breakerFailures,
          breakerCooldownMs,
          breakerMaxCooldownMs,
          Analysis.defaults(),
          TemplateBudget.DEFAULTS);
    }
  }

  /**
   * What the router spends on analysing requests (docs/operations.md, "Tokenization budget").
   *
   * @param tokenizeMaxChars prompts (or rendered chats) longer than this are not tokenized but
   *     routed by load
   * @param tokenizeMaxPieceChars the longest text one native tokenizer call gets; a prompt with a
   *     longer stretch that cannot be cut at a pre-token boundary is routed by load
   * @param analysisInFlightBytes request bytes being analysed or waiting for it, all requests
   *     together; a request that does not fit gets 429 (one request alone always fits)
   * @param analysisConcurrency requests analysed at once (threads)
   * @param analysisQueue requests waiting for an analysis thread; beyond it, 429
   */
  public record Analysis(
      int tokenizeMaxChars,
      int tokenizeMaxPieceChars,
      long analysisInFlightBytes,
      int analysisConcurrency,
      int analysisQueue) {

    public static final int DEFAULT_TOKENIZE_MAX_CHARS = 8 << 20;
    public static final int DEFAULT_TOKENIZE_MAX_PIECE_CHARS = 1 << 18;
    public static final long DEFAULT_IN_FLIGHT_BYTES = 96L << 20;
    public static final int DEFAULT_QUEUE = 256;

    /** Threads by default: the processors, at least 2. */
    public static int defaultConcurrency() {
      return Math.max(2, Runtime.getRuntime().availableProcessors());
    }

    public static Analysis defaults() {
      return new Analysis(
          DEFAULT_TOKENIZE_MAX_CHARS,
          DEFAULT_TOKENIZE_MAX_PIECE_CHARS,
          DEFAULT_IN_FLIGHT_BYTES,
          defaultConcurrency(),
          DEFAULT_QUEUE);
    }
  }

  public record Listen(String host, int port) {}

  /**
   * What the prefix index holds and how often a worker may wipe its views (keys {@code
   * index.maxBlocksPerSource}, {@code index.maxBlocks}, {@code events.resetsPerMinute}, {@code
   * events.resetsBurst}; see {@code io.infera.router.kv.IndexLimits}).
   */
  public record Index(
      long maxBlocksPerSource,
      long maxBlocks,
      double resetsPerMinute,
      int resetsBurst,
      Accuracy accuracy) {

    public Index {
      accuracy = accuracy == null ? Accuracy.DEFAULTS : accuracy;
    }

    /** Index limits with {@code index.accuracy.*} at its defaults. */
    public Index(long maxBlocksPerSource, long maxBlocks, double resetsPerMinute, int resetsBurst) {
      this(maxBlocksPerSource, maxBlocks, resetsPerMinute, resetsBurst, null);
    }

    public static Index defaults() {
      io.infera.router.kv.IndexLimits d = io.infera.router.kv.IndexLimits.defaults();
      return new Index(d.maxBlocksPerSource(), d.maxBlocks(), d.resetsPerMinute(), d.resetsBurst());
    }

    /**
     * {@code index.accuracy.*}: the sliding window behind the {@code IndexAccurate} condition
     * (docs/operations.md, "Index accuracy").
     *
     * @param window the last this many answers
     * @param windowSeconds ... that are at most this old
     * @param minSamples answers that report cached tokens needed for True or False (else Unknown)
     * @param minPrecision predicted-hit blocks that were hits, at least (else False, PhantomHits)
     * @param minRecall reported-hit blocks the router predicted, at least (else False, MissedHits)
     */
    public record Accuracy(
        int window, long windowSeconds, int minSamples, double minPrecision, double minRecall) {
      public static final Accuracy DEFAULTS = new Accuracy(512, 600, 20, 0.8, 0.8);
    }

    /** As the index's limits. */
    public io.infera.router.kv.IndexLimits limits() {
      return new io.infera.router.kv.IndexLimits(
          maxBlocksPerSource, maxBlocks, resetsPerMinute, resetsBurst);
    }
  }

  /**
   * The HTTP server's own limits, set under {@code limits} (docs/contracts.md, "HTTP server
   * limits"). Each timeout closes the connection; the caps refuse what is past them.
   *
   * @param idleTimeoutMs a connection with no request under way is closed after this long
   * @param headerTimeoutMs from a request's first byte to the end of its headers
   * @param bodyTimeoutMs from the end of a request's headers to the end of its body
   * @param maxConnections open connections on the public port; one more is closed at once
   * @param maxInFlight API requests under way (analysis to the last response byte); one more gets
   *     503 with {@code Retry-After}
   */
  public record ServerLimits(
      long idleTimeoutMs,
      long headerTimeoutMs,
      long bodyTimeoutMs,
      int maxConnections,
      int maxInFlight) {

    /** The defaults of docs/contracts.md. */
    public static final ServerLimits DEFAULTS =
        new ServerLimits(60_000, 10_000, 120_000, 8192, 1024);
  }

  /**
   * The admin listener ({@code /v1/admin/*}, {@code /v1/workers}, {@code /metrics}), apart from the
   * public port.
   *
   * @param port the admin port (0 = any free port)
   * @param tokenFile a file holding the bearer token the admin port requires, or null for none
   * @param explain whether {@code POST /v1/admin/explain} is served
   * @param cacheHitHeader whether answers carry {@code x-infera-cache-hit-blocks}
   */
  public record Admin(
      String host, int port, String tokenFile, boolean explain, boolean cacheHitHeader) {

    /** The default admin port. */
    public static final int DEFAULT_PORT = 8081;

    /**
     * The defaults beside {@code listen}: its host, and port {@value #DEFAULT_PORT} (any free port
     * when {@code listen.port} is 0, so test routers never collide on a fixed admin port).
     */
    public static Admin defaultsFor(Listen listen) {
      return new Admin(listen.host(), listen.port() == 0 ? 0 : DEFAULT_PORT, null, true, true);
    }
  }
}
