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
   * SGLang's Rust router (its model gateway): {@code cache_aware}, an approximate radix tree over
   * the request text per worker, balanced by its default thresholds; health-checked workers.
   */
  SGLANG_ROUTER("sglang-router", "sglang-router==0.3.2", "sglang-router", true),

  /**
   * vLLM's Rust router (a fork of SGLang's): the same {@code cache_aware} policy and command line.
   */
  VLLM_ROUTER("vllm-router", "vllm-router==0.1.17", "vllm-router", true),

  /**
   * NVIDIA Dynamo: its KV router reads its own engines' events (its {@code mocker}) over its own
   * runtime, not OpenAI HTTP workers, so it cannot stand in front of our simulated engines.
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

  /** The pip requirement, pinned. */
  public String requirement() {
    return requirement;
  }

  /** Why this peer cannot run in front of the simulated engines, or null when it can. */
  public String unsupportedReason() {
    return frontsHttpWorkers
        ? null
        : wireName
            + " routes among its own runtime's workers (its KV router subscribes to their events"
            + " over its own transport), not among OpenAI HTTP servers; run it with its own"
            + " mocker engines instead (not built yet)";
  }

  /**
   * The command that starts the peer on {@code port} of loopback in front of {@code workerUrls}.
   *
   * @param bin the virtualenv's {@code bin} directory
   * @param metricsPort a free loopback port for its Prometheus listener
   */
  public List<String> command(Path bin, int port, int metricsPort, List<String> workerUrls) {
    if (!frontsHttpWorkers) {
      throw new IllegalStateException(unsupportedReason());
    }
    List<String> cmd = new ArrayList<>();
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
    cmd.addAll(workerUrls);
    return cmd;
  }

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
