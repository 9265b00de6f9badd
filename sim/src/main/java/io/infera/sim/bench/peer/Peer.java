package io.infera.sim.bench.peer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A router users would install instead of ours, pinned to one PyPI release, with the command line
 * of its documented cache-aware configuration in front of plain OpenAI HTTP workers.
 */
public enum Peer {

  /**
   * Our own router ({@code kv-aware}, every other key at its default) run the way the peers are: in
   * a JVM of its own with a 1 Gi router pod's memory and collector, fed by the engines' ZMQ KV
   * events, so its CPU and latency are measured on the same footing as theirs.
   */
  INFERA("infera", null, null, true),

  /**
   * SGLang's Rust router (its model gateway): {@code cache_aware}, an approximate radix tree over
   * the request text per worker, balanced by its default thresholds; health-checked workers.
   */
  SGLANG_ROUTER("sglang-router", "sglang-router==0.3.2", "sglang-router", true),

  /**
   * vLLM's Rust router (a fork of SGLang's): the same {@code cache_aware} policy and command line.
   */
  VLLM_ROUTER("vllm-router", "vllm-router==0.1.17", "vllm-router", true),

  /**
   * NVIDIA Dynamo: its frontend with the KV router ({@code --router-mode kv}) over its own engines,
   * the {@code mocker}, which publish KV events over Dynamo's own runtime; our HTTP engines cannot
   * take its place, so the mocker runs with our engines' block size, blocks, batch limits, speedup
   * and our cost model as its timing profile ({@link DynamoSetup}). File discovery: no etcd, no
   * NATS.
   */
  DYNAMO("dynamo", "ai-dynamo==1.6.1", null, false);

  private final String wireName;
  private final String requirement;
  private final String executable;
  private final boolean frontsHttpWorkers;

  Peer(String wireName, String requirement, String executable, boolean frontsHttpWorkers) {
    this.wireName = wireName;
    this.requirement = requirement;
    this.executable = executable;
    this.frontsHttpWorkers = frontsHttpWorkers;
  }

  public String wireName() {
    return wireName;
  }

  /** The pip requirement, pinned; null for {@link #INFERA}, which is this build. */
  public String requirement() {
    return requirement;
  }

  /** The release that runs: the pinned requirement, or "this build". */
  public String release() {
    return requirement == null ? "this build" : requirement;
  }

  /**
   * True when the peer brings its own engines (Dynamo's mocker) instead of routing to our simulated
   * ones.
   */
  public boolean ownsEngines() {
    return !frontsHttpWorkers;
  }

  /**
   * How our engines are configured, for a peer that runs its own in their place.
   *
   * @param workers engines
   * @param blockSize tokens per KV block
   * @param blocksPerWorker KV blocks per engine
   * @param maxNumSeqs most running sequences per engine
   * @param maxNumBatchedTokens token budget of one step
   * @param speedup how much faster than the wall clock simulated time runs
   */
  public record Engines(
      int workers,
      int blockSize,
      int blocksPerWorker,
      int maxNumSeqs,
      int maxNumBatchedTokens,
      double speedup) {}

  /**
   * Dynamo's mocker engines: {@code engines.workers()} of them in one process, registered through
   * file discovery.
   *
   * @param profile the timing profile written by {@link DynamoSetup#profileNpz}
   */
  public List<String> engineCommand(
      Path bin, Engines engines, String model, Path modelDir, Path profile) {
    if (!ownsEngines()) {
      throw new IllegalStateException(wireName + " routes to our engines");
    }
    return List.of(
        bin.resolve("python").toString(),
        "-m",
        "dynamo.mocker",
        "--model-path",
        modelDir.toString(),
        "--model-name",
        model,
        "--num-workers",
        Integer.toString(engines.workers()),
        "--block-size",
        Integer.toString(engines.blockSize()),
        "--num-gpu-blocks-override",
        Integer.toString(engines.blocksPerWorker()),
        "--max-num-seqs",
        Integer.toString(engines.maxNumSeqs()),
        "--max-num-batched-tokens",
        Integer.toString(engines.maxNumBatchedTokens()),
        "--enable-prefix-caching",
        "--enable-chunked-prefill",
        "--speedup-ratio",
        Double.toString(engines.speedup()),
        "--planner-profile-data",
        profile.toString(),
        "--discovery-backend",
        "file");
  }

  /**
   * The command that starts the peer on {@code port} of loopback in front of {@code workers}
   * (Dynamo's frontend finds its mocker engines through discovery instead).
   *
   * @param bin the virtualenv's {@code bin} directory (unused for {@link #INFERA})
   * @param metricsPort a free loopback port for its Prometheus (or admin) listener
   * @param config the router configuration file {@link #INFERA} reads (written by {@link #config});
   *     unused by the others
   */
  public List<String> command(
      Path bin, int port, int metricsPort, List<Worker> workers, Path config) {
    List<String> cmd = new ArrayList<>();
    if (this == DYNAMO) {
      cmd.add(bin.resolve("python").toString());
      cmd.addAll(
          List.of(
              "-m",
              "dynamo.frontend",
              "--http-host",
              "127.0.0.1",
              "--http-port",
              Integer.toString(port),
              "--router-mode",
              "kv",
              "--discovery-backend",
              "file"));
      return cmd;
    }
    if (this == INFERA) {
      cmd.add(ProcessHandle.current().info().command().orElse("java"));
      cmd.addAll(INFERA_JVM_FLAGS);
      cmd.add("-cp");
      cmd.add(System.getProperty("java.class.path"));
      cmd.add("io.infera.router.cli.InferaRouter");
      cmd.add("serve");
      cmd.add("--config");
      cmd.add(config.toString());
      return cmd;
    }
    cmd.add(bin.resolve(executable).toString());
    if (this == SGLANG_ROUTER) {
      cmd.add("launch");
    }
    cmd.add("--host");
    cmd.add("127.0.0.1");
    cmd.add("--port");
    cmd.add(Integer.toString(port));
    cmd.add("--prometheus-host");
    cmd.add("127.0.0.1");
    cmd.add("--prometheus-port");
    cmd.add(Integer.toString(metricsPort));
    cmd.add("--policy");
    cmd.add("cache_aware");
    cmd.add("--log-level");
    cmd.add(this == SGLANG_ROUTER ? "warn" : "warning");
    cmd.add("--worker-urls");
    for (Worker w : workers) {
      cmd.add(w.url());
    }
    return cmd;
  }

  /**
   * A router pod's JVM: the operator's heap share of a 1 Gi container and the collector the JVM
   * picks there (docs/operations.md).
   */
  static final List<String> INFERA_JVM_FLAGS =
      List.of("-XX:MaxRAM=1g", "-XX:MaxRAMPercentage=70", "-XX:+UseSerialGC");

  /**
   * {@link #INFERA}'s configuration: {@code kv-aware} over {@code workers} (static discovery, ZMQ
   * events), the model's tokenizer, every other key at its default.
   */
  public static String config(
      String model, int blockSize, int port, int adminPort, List<Worker> workers) {
    StringBuilder w = new StringBuilder();
    for (int i = 0; i < workers.size(); i++) {
      Worker x = workers.get(i);
      w.append("    - {id: w")
          .append(i)
          .append(", url: \"")
          .append(x.url())
          .append("\", role: mixed, engine: vllm, zmq: \"")
          .append(x.zmq())
          .append('"');
      if (x.zmqReplay() != null) {
        w.append(", zmqReplay: \"").append(x.zmqReplay()).append('"');
      }
      w.append("}\n");
    }
    return """
        apiVersion: infera.io/v1alpha1
        kind: RouterConfig
        model: %s
        pageSize: %d
        tokenizer: {path: builtin:qwen3, mode: local}
        policy: {name: kv-aware}
        events: {transport: zmq}
        discovery:
          backend: static
          healthIntervalMs: 1000
          workers:
        %slimits: {firstByteTimeoutMs: 600000}
        listen: {host: 127.0.0.1, port: %d}
        admin: {host: 127.0.0.1, port: %d}
        """
        .formatted(model, blockSize, w, port, adminPort);
  }

  /**
   * One engine the peer routes to.
   *
   * @param url its OpenAI HTTP base URL
   * @param zmq its KV-event endpoint (only our router reads it)
   * @param zmqReplay its replay endpoint, or null
   */
  public record Worker(String url, String zmq, String zmqReplay) {}

  /** The executable's file name in the virtualenv's {@code bin}, or null. */
  String executable() {
    return executable;
  }

  /** Parses a wire name ({@code sglang-router}, {@code vllm-router}, {@code dynamo}). */
  public static Peer parse(String name) {
    String n = name.strip().toLowerCase(Locale.ROOT);
    for (Peer p : values()) {
      if (p.wireName.equals(n)) {
        return p;
      }
    }
    List<String> known = new ArrayList<>();
    for (Peer p : values()) {
      known.add(p.wireName);
    }
    throw new IllegalArgumentException(
        "unknown peer '" + name + "' (known: " + String.join(", ", known) + ")");
  }
}
