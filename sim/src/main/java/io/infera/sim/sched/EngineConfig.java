package io.infera.sim.sched;

import java.util.Objects;

/**
 * Scheduler limits and step costs of one simulated engine.
 *
 * @param maxNumSeqs most sequences running at once (vLLM {@code --max-num-seqs}), {@code >= 1}
 * @param maxNumBatchedTokens token budget of one step (vLLM {@code --max-num-batched-tokens}): each
 *     decoding sequence costs 1, a prefill chunk its uncached tokens; {@code >= 1}
 * @param cost step latency model, non-null
 */
public record EngineConfig(int maxNumSeqs, int maxNumBatchedTokens, CostModel cost) {

  public EngineConfig {
    if (maxNumSeqs < 1) {
      throw new IllegalArgumentException("maxNumSeqs must be >= 1, got " + maxNumSeqs);
    }
    if (maxNumBatchedTokens < 1) {
      throw new IllegalArgumentException(
          "maxNumBatchedTokens must be >= 1, got " + maxNumBatchedTokens);
    }
    Objects.requireNonNull(cost, "cost");
  }

  /** 256 sequences, 8192 tokens per step, {@link CostModel#defaults()}. */
  public static EngineConfig defaults() {
    return new EngineConfig(256, 8192, CostModel.defaults());
  }
}
