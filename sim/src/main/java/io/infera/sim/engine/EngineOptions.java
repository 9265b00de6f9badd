package io.infera.sim.engine;

/**
 * Settings of one simulated engine server, validated on construction (the message names the field).
 *
 * @param host address the HTTP server and the ZMQ sockets bind to
 * @param port HTTP port; 0 picks a free one
 * @param zmqPort KV-event PUB port of rank 0 (rank r binds {@code zmqPort + r}); 0 picks free
 *     consecutive ports; -1 publishes no events
 * @param replayPort replay ROUTER port of rank 0 (rank r binds {@code replayPort + r}); 0 picks
 *     free consecutive ports; -1 binds no replay socket
 * @param flavor the KV-event wire shape
 * @param blockSize tokens per KV block (vLLM {@code --block-size}, SGLang {@code --page-size})
 * @param numBlocks KV blocks per data-parallel rank
 * @param model the served model name ({@code model} in requests must match it)
 * @param tokenizer tokenizer spec for {@code PromptTokenizer.load} ({@code builtin:qwen3}, a
 *     directory, a hub id)
 * @param speedup virtual milliseconds per real millisecond (steps sleep {@code duration / speedup})
 * @param dpSize data-parallel ranks, each with its own scheduler, cache and publisher
 * @param hashSeed seed of the engine-side block hashes (vLLM's {@code PYTHONHASHSEED})
 * @param maxNumSeqs most sequences scheduled in one step
 * @param maxNumBatchedTokens token budget of one step
 * @param topic the ZMQ topic frame (may be empty)
 * @param promptTokensDetails report {@code usage.prompt_tokens_details.cached_tokens}, as vLLM does
 *     with {@code --enable-prompt-tokens-details} and SGLang with {@code --enable-cache-report}
 *     (the operator sets both); off, the engine reports no prefix-cache hit
 * @param kvEventsHost where the KV-event sockets are, or null for {@code host}: as vLLM and SGLang
 *     treat their endpoint, a wildcard ({@code *}, {@code ::}, {@code 0.0.0.0}) is bound, any other
 *     address is connected to by the PUB sockets (the subscriber binds; it needs a fixed {@code
 *     zmqPort}); the replay ROUTER binds it either way. Null keeps binding both on {@code host}
 * @param divergentTemplate text prepended to every rendered chat (completions, {@code /tokenize}
 *     and the KV events alike): a deliberately different chat template, for render-parity tests;
 *     null renders chats exactly as the router does
 */
public record EngineOptions(
    String host,
    int port,
    int zmqPort,
    int replayPort,
    Flavor flavor,
    int blockSize,
    int numBlocks,
    String model,
    String tokenizer,
    double speedup,
    int dpSize,
    long hashSeed,
    int maxNumSeqs,
    int maxNumBatchedTokens,
    String topic,
    boolean promptTokensDetails,
    String kvEventsHost,
    String divergentTemplate) {

  /** Options without a divergent template. */
  public EngineOptions(
      String host,
      int port,
      int zmqPort,
      int replayPort,
      Flavor flavor,
      int blockSize,
      int numBlocks,
      String model,
      String tokenizer,
      double speedup,
      int dpSize,
      long hashSeed,
      int maxNumSeqs,
      int maxNumBatchedTokens,
      String topic,
      boolean promptTokensDetails,
      String kvEventsHost) {
    this(
        host,
        port,
        zmqPort,
        replayPort,
        flavor,
        blockSize,
        numBlocks,
        model,
        tokenizer,
        speedup,
        dpSize,
        hashSeed,
        maxNumSeqs,
        maxNumBatchedTokens,
        topic,
        promptTokensDetails,
        kvEventsHost,
        null);
  }

  /** The most data-parallel ranks one simulated server runs. */
  public static final int MAX_DP_SIZE = 64;

  public EngineOptions {
    require(host != null && !host.isBlank(), "host must not be blank");
    require(port >= 0 && port <= 65535, "port must be 0..65535, got " + port);
    require(zmqPort >= -1 && zmqPort <= 65535, "zmqPort must be -1..65535, got " + zmqPort);
    require(
        replayPort >= -1 && replayPort <= 65535, "replayPort must be -1..65535, got " + replayPort);
    require(flavor != null, "flavor must be set");
    require(blockSize >= 1, "blockSize must be >= 1, got " + blockSize);
    require(numBlocks >= 1, "numBlocks must be >= 1, got " + numBlocks);
    require(model != null && !model.isBlank(), "model must not be blank");
    require(tokenizer != null && !tokenizer.isBlank(), "tokenizer must not be blank");
    require(
        speedup > 0 && Double.isFinite(speedup),
        "speedup must be a positive number, got " + speedup);
    require(
        dpSize >= 1 && dpSize <= MAX_DP_SIZE,
        "dpSize must be 1.." + MAX_DP_SIZE + ", got " + dpSize);
    require(maxNumSeqs >= 1, "maxNumSeqs must be >= 1, got " + maxNumSeqs);
    require(
        maxNumBatchedTokens >= 1, "maxNumBatchedTokens must be >= 1, got " + maxNumBatchedTokens);
    require(topic != null, "topic must not be null (use \"\" for none)");
    require(
        kvEventsHost == null || !kvEventsHost.isBlank(), "kvEventsHost must not be blank if set");
    require(
        divergentTemplate == null || !divergentTemplate.isEmpty(),
        "divergentTemplate must not be empty if set");
    require(
        kvEventsHost == null || isWildcard(kvEventsHost) || zmqPort != 0,
        "a kvEventsHost the PUB sockets connect to needs a fixed zmqPort, got 0");
    require(
        zmqPort <= 0 || zmqPort + dpSize - 1 <= 65535,
        "zmqPort + dpSize - 1 must be <= 65535, got " + (zmqPort + dpSize - 1));
    require(
        replayPort <= 0 || replayPort + dpSize - 1 <= 65535,
        "replayPort + dpSize - 1 must be <= 65535, got " + (replayPort + dpSize - 1));
  }

  /** vLLM's and SGLang's test for an endpoint they bind rather than connect to. */
  public static boolean isWildcard(String host) {
    return host.equals("0.0.0.0") || host.equals("*") || host.equals("::");
  }

  /** Whether the PUB sockets connect ({@code kvEventsHost} set and not a wildcard). */
  public boolean publishersConnect() {
    return kvEventsHost != null && !isWildcard(kvEventsHost);
  }

  /**
   * 127.0.0.1, free HTTP, ZMQ and replay ports, {@code vllm}, 16-token blocks, 8192 blocks, {@code
   * Qwen/Qwen3-0.6B} with {@code builtin:qwen3}, real time, one rank, seed 0, 256 sequences, 8192
   * batched tokens, topic {@code kv-events}, cached tokens reported.
   */
  public static EngineOptions defaults() {
    return new EngineOptions(
        "127.0.0.1",
        0,
        0,
        0,
        Flavor.VLLM,
        16,
        8192,
        "Qwen/Qwen3-0.6B",
        "builtin:qwen3",
        1.0,
        1,
        0L,
        256,
        8192,
        "kv-events",
        true,
        null);
  }

  /** True when KV events are published. */
  public boolean publishesEvents() {
    return zmqPort >= 0;
  }

  /** True when a replay socket is bound (only with events). */
  public boolean hasReplay() {
    return publishesEvents() && replayPort >= 0;
  }

  /** A builder starting from these options. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Changes some fields of an {@link EngineOptions}; {@link #build()} validates. */
  public static final class Builder {
    private String host;
    private int port;
    private int zmqPort;
    private int replayPort;
    private Flavor flavor;
    private int blockSize;
    private int numBlocks;
    private String model;
    private String tokenizer;
    private double speedup;
    private int dpSize;
    private long hashSeed;
    private int maxNumSeqs;
    private int maxNumBatchedTokens;
    private String topic;
    private boolean promptTokensDetails;
    private String kvEventsHost;
    private String divergentTemplate;

    private Builder(EngineOptions o) {
      divergentTemplate = o.divergentTemplate;
      kvEventsHost = o.kvEventsHost;
      host = o.host;
      port = o.port;
      zmqPort = o.zmqPort;
      replayPort = o.replayPort;
      flavor = o.flavor;
      blockSize = o.blockSize;
      numBlocks = o.numBlocks;
      model = o.model;
      tokenizer = o.tokenizer;
      speedup = o.speedup;
      dpSize = o.dpSize;
      hashSeed = o.hashSeed;
      maxNumSeqs = o.maxNumSeqs;
      maxNumBatchedTokens = o.maxNumBatchedTokens;
      topic = o.topic;
      promptTokensDetails = o.promptTokensDetails;
    }

    public Builder host(String v) {
      host = v;
      return this;
    }

    public Builder port(int v) {
      port = v;
      return this;
    }

    public Builder zmqPort(int v) {
      zmqPort = v;
      return this;
    }

    public Builder replayPort(int v) {
      replayPort = v;
      return this;
    }

    public Builder flavor(Flavor v) {
      flavor = v;
      return this;
    }

    public Builder blockSize(int v) {
      blockSize = v;
      return this;
    }

    public Builder numBlocks(int v) {
      numBlocks = v;
      return this;
    }

    public Builder model(String v) {
      model = v;
      return this;
    }

    public Builder tokenizer(String v) {
      tokenizer = v;
      return this;
    }

    public Builder speedup(double v) {
      speedup = v;
      return this;
    }

    public Builder dpSize(int v) {
      dpSize = v;
      return this;
    }

    public Builder hashSeed(long v) {
      hashSeed = v;
      return this;
    }

    public Builder maxNumSeqs(int v) {
      maxNumSeqs = v;
      return this;
    }

    public Builder maxNumBatchedTokens(int v) {
      maxNumBatchedTokens = v;
      return this;
    }

    public Builder topic(String v) {
      topic = v;
      return this;
    }

    public Builder promptTokensDetails(boolean v) {
      promptTokensDetails = v;
      return this;
    }

    public Builder kvEventsHost(String v) {
      kvEventsHost = v;
      return this;
    }

    public Builder divergentTemplate(String v) {
      divergentTemplate = v;
      return this;
    }

    /**
     * @throws IllegalArgumentException naming the first invalid field
     */
    public EngineOptions build() {
      return new EngineOptions(
          host,
          port,
          zmqPort,
          replayPort,
          flavor,
          blockSize,
          numBlocks,
          model,
          tokenizer,
          speedup,
          dpSize,
          hashSeed,
          maxNumSeqs,
          maxNumBatchedTokens,
          topic,
          promptTokensDetails,
          kvEventsHost,
          divergentTemplate);
    }
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }
}
