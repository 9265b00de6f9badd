package io.infera.sim.bench;

import io.infera.sim.workload.Arrivals;
import io.infera.sim.workload.MultiTurnWorkload;
import io.infera.sim.workload.MultimodalWorkload;
import io.infera.sim.workload.NoReuseWorkload;
import io.infera.sim.workload.SharedPrefixWorkload;
import io.infera.sim.workload.ToolAgentWorkload;
import io.infera.sim.workload.Workload;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The benchmark's built-in workloads, sized for a fleet: what {@code infera-sim bench --workload}
 * runs and what the routing-quality gate tests check.
 *
 * <ul>
 *   <li>{@code shared-prefix}: 2,048-token system prompts (as many groups as fill {@code
 *       kvFraction} of the fleet's KV), 20 prompts per group with 128-token questions and 64-token
 *       answers, Poisson arrivals at 15 per second per worker.
 *   <li>{@code multi-turn}: 8 conversations per worker of 8 turns; 1,024 shared + 512 own system
 *       tokens, 128-token questions and answers, exponential think time of 2 s, conversations start
 *       at 0.5 per second per worker.
 *   <li>{@code no-reuse}: 1,000 unique 1,024-token prompts, 64-token answers, 10 per second per
 *       worker.
 *   <li>{@code tool-agent}: 16 agents per worker of 8 steps; one of 4 tool schemas of 4,096 tokens
 *       plus a 128-token task, 96-token tool results answered by 32-token tool calls, exponential
 *       tool time of 300 ms, agents start at 2 per second per worker.
 *   <li>{@code multimodal}: 800 single-turn image questions per 4 workers behind one 128-token
 *       system prompt, 64-token questions and 32-token answers; half the images from a pool of 64
 *       popular ones (weight 1/rank), half never seen before; 6 per second per worker (moderate
 *       load).
 * </ul>
 */
public final class StandardWorkloads {

  public static final List<String> NAMES =
      List.of("shared-prefix", "multi-turn", "no-reuse", "tool-agent", "multimodal");

  static final int SHARED_PREFIX_SYSTEM_TOKENS = 2048;

  static final int TOOL_AGENT_TOOLSETS_PER_WORKER = 2;

  static final int TOOL_AGENT_SCHEMA_TOKENS = 4096;

  private StandardWorkloads() {}

  /**
   * The workload {@code name} for each seed.
   *
   * @param kvFraction shared-prefix: distinct system prompts as a fraction of the fleet's KV
   * @param requests total requests (shared-prefix, no-reuse) or conversations (multi-turn, agents
   *     for tool-agent); null for the default
   * @param rate arrivals per second (conversations for multi-turn, agents for tool-agent); null for
   *     the default
   * @throws IllegalArgumentException for an unknown name or a knob out of range, naming it
   */
  public static IntFunction<Workload> of(
      String name, FleetSpec fleet, double kvFraction, Integer requests, Double rate) {
    if (requests != null && requests < 1) {
      throw new IllegalArgumentException("--requests must be >= 1, got " + requests);
    }
    if (rate != null && !(rate > 0 && rate < Double.POSITIVE_INFINITY)) {
      throw new IllegalArgumentException("--rate must be a finite number > 0, got " + rate);
    }
    return switch (name) {
      case "shared-prefix" -> sharedPrefix(fleet, kvFraction, requests, rate);
      case "multi-turn" ->
          seed ->
              new MultiTurnWorkload(
                  new MultiTurnWorkload.Config(
                      requests == null ? 8 * fleet.workers() : requests,
                      8,
                      512,
                      1024,
                      128,
                      128,
                      2000,
                      MultiTurnWorkload.ThinkTime.EXPONENTIAL,
                      Arrivals.poisson(rate == null ? 0.5 * fleet.workers() : rate),
                      seed));
      case "no-reuse" ->
          seed ->
              new NoReuseWorkload(
                  new NoReuseWorkload.Config(
                      requests == null ? 1000 : requests,
                      1024,
                      64,
                      Arrivals.poisson(rate == null ? 10.0 * fleet.workers() : rate),
                      seed));
      case "tool-agent" ->
          seed ->
              new ToolAgentWorkload(
                  new ToolAgentWorkload.Config(
                      requests == null ? 24 * fleet.workers() : requests,
                      TOOL_AGENT_TOOLSETS_PER_WORKER * fleet.workers(),
                      TOOL_AGENT_SCHEMA_TOKENS,
                      128,
                      8,
                      96,
                      32,
                      300,
                      Arrivals.poisson(rate == null ? 4.0 * fleet.workers() : rate),
                      seed));
      case "multimodal" ->
          seed ->
              new MultimodalWorkload(
                  new MultimodalWorkload.Config(
                      requests == null ? 200 * fleet.workers() : requests,
                      128,
                      64,
                      32,
                      64,
                      0.5,
                      Arrivals.poisson(rate == null ? 6.0 * fleet.workers() : rate),
                      seed));
      default ->
          throw new IllegalArgumentException(
              "--workload: unknown '" + name + "', expected one of " + String.join(", ", NAMES));
    };
  }

  private static IntFunction<Workload> sharedPrefix(
      FleetSpec fleet, double kvFraction, Integer requests, Double rate) {
    if (!(kvFraction > 0 && kvFraction <= 10)) {
      throw new IllegalArgumentException("--kv-fraction must be > 0 and <= 10, got " + kvFraction);
    }
    int groups =
        SharedPrefixWorkload.groupsForWorkingSet(
            kvFraction,
            fleet.workers(),
            fleet.blocksPerWorker(),
            fleet.blockSize(),
            SHARED_PREFIX_SYSTEM_TOKENS);
    int perGroup = requests == null ? 20 : Math.max(1, requests / Math.max(1, groups));
    Arrivals arrivals = Arrivals.poisson(rate == null ? 15.0 * fleet.workers() : rate);
    return seed ->
        SharedPrefixWorkload.forWorkingSet(
            kvFraction,
            fleet.workers(),
            fleet.blocksPerWorker(),
            fleet.blockSize(),
            perGroup,
            SHARED_PREFIX_SYSTEM_TOKENS,
            128,
            64,
            arrivals,
            seed);
  }
}
