package io.infera.sim.bench;

import io.infera.router.config.OverlapWeightMode;
import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.sim.sched.EngineConfig;

/**
 * The simulated fleet of one benchmark (identical engines) and the router setting every arm shares.
 *
 * @param eventDelayMs virtual time only: how long an engine's KV-event batch takes to reach the
 *     router's index
 * @param overlapWeight the router's {@code policy.overlapWeight} with {@code weightMode} fixed, and
 *     always the oracle's: what one block of prefill saved is worth against one block of load
 * @param weightMode the router's {@code policy.overlapWeightMode}: {@code AUTO} tunes the weight
 *     online from the default {@code policy.tuner} start (the router's default)
 */
public record FleetSpec(
    int workers,
    int blocksPerWorker,
    int blockSize,
    EngineConfig engine,
    double eventDelayMs,
    double overlapWeight,
    OverlapWeightMode weightMode) {

  public FleetSpec {
    if (workers < 1 || blocksPerWorker < 1 || blockSize < 1) {
      throw new IllegalArgumentException("workers, blocksPerWorker and blockSize must be >= 1");
    }
    if (!(eventDelayMs >= 0) || Double.isInfinite(eventDelayMs)) {
      throw new IllegalArgumentException("eventDelayMs must be finite and >= 0");
    }
    if (weightMode == null) {
      throw new IllegalArgumentException("weightMode must be set");
    }
    // PolicyConfig checks the weight and names it in its message.
    policy(PolicyName.KV_AWARE);
  }

  /** A fleet whose router keeps {@code overlapWeight} fixed. */
  public FleetSpec(
      int workers,
      int blocksPerWorker,
      int blockSize,
      EngineConfig engine,
      double eventDelayMs,
      double overlapWeight) {
    this(
        workers,
        blocksPerWorker,
        blockSize,
        engine,
        eventDelayMs,
        overlapWeight,
        OverlapWeightMode.FIXED);
  }

  /**
   * 16-token blocks, default engines, 2 ms event delay, the router's default (tuned) overlap
   * weight; the oracle's weight 1.0.
   */
  public static FleetSpec of(int workers, int blocksPerWorker) {
    return new FleetSpec(
        workers,
        blocksPerWorker,
        16,
        EngineConfig.defaults(),
        2.0,
        PolicyConfig.DEFAULT_OVERLAP_WEIGHT,
        OverlapWeightMode.AUTO);
  }

  /** The router policy configuration of {@code name} on this fleet. */
  public PolicyConfig policy(PolicyName name) {
    return weightMode == OverlapWeightMode.AUTO
        ? PolicyConfig.tuned(name)
        : new PolicyConfig(name, overlapWeight, null, null);
  }

  /** Total KV blocks of the fleet. */
  public long fleetBlocks() {
    return (long) workers * blocksPerWorker;
  }
}
