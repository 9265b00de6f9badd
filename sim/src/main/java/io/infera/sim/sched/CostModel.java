package io.infera.sim.sched;

/**
 * Step latency model: how long one forward pass of a batch takes on the simulated GPU.
 *
 * <p>Implementations are pure functions of their arguments (no clock, no state) and may be called
 * from any thread.
 */
public interface CostModel {

  /**
   * Latency of one engine step.
   *
   * @param prefillTokens uncached prompt tokens computed in this step (all prefill chunks, {@code
   *     >= 0})
   * @param decodeSeqs sequences decoding one token in this step, {@code >= 0}
   * @param contextTokens KV tokens read by the batch (sum of running sequence lengths), >= 0
   * @return step duration in milliseconds, {@code >= 0}; 0 only for an empty batch
   */
  double stepMs(int prefillTokens, int decodeSeqs, long contextTokens);

  /** The fitted H100 / 8B-model costs of {@link FittedCostModel#H100_8B}. */
  static CostModel defaults() {
    return FittedCostModel.H100_8B;
  }
}
