package io.infera.router.config;

import io.infera.router.tokenize.TemplateBudget;
import java.util.List;

/**
 * The operator → router contract (docs/contracts.md, "RouterConfig"), after defaults and
 * validation.
 *
 * @param model the served model name (requests for another model get 404)
 * @param loraAdapters LoRA adapter names the engines serve as extra models
 * @param pageSize the fleet's one KV block size
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
    Listen listen) {

  public RouterConfig {
    loraAdapters = List.copyOf(loraAdapters);
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
   */
  public record Tokenizer(String path, TokenizerMode mode, boolean prefixReuse, String revision) {
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
   */
  public record Nats(
      String url, String stream, String subjectPrefix, String snapshotBucket, boolean shareLoad) {}

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

  /** A worker listed in the config (static backend). */
  public record StaticWorker(
      String id, String url, Role role, String engine, String zmq, String zmqReplay, int dpSize) {}

  /**
   * @param maxBodyBytes request bodies above this get 413
   * @param retries extra attempts on another worker when one fails before the first byte
   * @param connectTimeoutMs TCP connect timeout to a worker
   * @param firstByteTimeoutMs time to the first response byte before the attempt fails
   * @param shutdownTimeoutMs how long graceful shutdown waits for in-flight requests
   * @param breakerFailures consecutive faults that open a worker's breaker
   * @param breakerCooldownMs first open period; doubles up to {@code breakerMaxCooldownMs}
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
      TemplateBudget template) {

    /** With the default template budget. */
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
          TemplateBudget.DEFAULTS);
    }
  }

  public record Listen(String host, int port) {}
}
