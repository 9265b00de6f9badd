package io.infera.router.config;

/**
 * The load model's settings ({@code policy.load.*}): how fast a worker is assumed to prefill before
 * the router has measured it (see {@code LoadTracker}).
 *
 * @param prefillBlocksPerSecond every worker's starting prefill rate, in {@code pageSize} blocks
 *     per second: booked prefill charges drain at this rate until the worker's own rate is learned
 * @param learnRate learn each worker's rate from the time to its first tokens (false: the starting
 *     rate stays)
 */
public record LoadModel(double prefillBlocksPerSecond, boolean learnRate) {

  /**
   * 3,000 blocks/s: the simulator's fitted 8B-on-H100 prefill ({@code FittedCostModel.H100_8B})
   * runs an 8,192-token step in 169 ms, 48,400 tokens/s, about 3,000 blocks of 16 tokens.
   */
  public static final double DEFAULT_PREFILL_BLOCKS_PER_SECOND = 3_000;

  /** The largest starting rate accepted. */
  public static final double MAX_PREFILL_BLOCKS_PER_SECOND = 10_000_000;

  public static final LoadModel DEFAULTS = new LoadModel(DEFAULT_PREFILL_BLOCKS_PER_SECOND, true);

  public LoadModel {
    if (!(prefillBlocksPerSecond > 0) || prefillBlocksPerSecond > MAX_PREFILL_BLOCKS_PER_SECOND) {
      throw new IllegalArgumentException(
          "prefillBlocksPerSecond must be in (0, "
              + (long) MAX_PREFILL_BLOCKS_PER_SECOND
              + "], got "
              + prefillBlocksPerSecond);
    }
  }
}
