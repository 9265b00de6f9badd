package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.DecodeDemandConfig.Mode;
import org.junit.jupiter.api.Test;

/**
 * The decode-heavy prefill/decode benchmark, shortened: demand {@code on} keeps the decode workers'
 * in-flight input tokens within the 1.3 max/min, {@code shadow} routes exactly as {@code
 * off}, and every booking and reservation is released by the end (the run checks that).
 */
class PdDemandBenchTest {

  private static final PdDemandBench.Spec SPEC =
      new PdDemandBench.Spec(1_500, 40, 12, 2_000, 24_000, 32, 128, 4, 4, 400_000, 15, 2);

  @Test
  void onBalancesInputTokensAcrossDecodeWorkersAndShadowChangesNoPick() {
    PdDemandBench.Result off = PdDemandBench.run(SPEC, Mode.OFF, 7);
    PdDemandBench.Result shadow = PdDemandBench.run(SPEC, Mode.SHADOW, 7);
    PdDemandBench.Result on = PdDemandBench.run(SPEC, Mode.ON, 7);
    assertThat(on.meanInstantRatio()).isLessThanOrEqualTo(1.3);
    assertThat(on.timeAverageRatio()).isLessThanOrEqualTo(1.3);
    assertThat(on.meanInstantRatio()).isLessThan(off.meanInstantRatio());
    assertThat(shadow.timeAverageRatio()).isEqualTo(off.timeAverageRatio());
    assertThat(shadow.meanTokens()).containsExactly(off.meanTokens());
    assertThat(shadow.agreeShare()).isBetween(0.0, 1.0);
    assertThat(off.agreeShare()).isNaN(); // off books and judges nothing
  }

  @Test
  void theWorkloadIsLongInputsAndFewOutputsAndDependsOnTheSeedOnly() {
    var a = PdDemandBench.workload(SPEC, 3);
    var b = PdDemandBench.workload(SPEC, 3);
    assertThat(a).hasSize(SPEC.requests());
    for (int i = 0; i < a.size(); i++) {
      assertThat(a.get(i).tokens).isEqualTo(b.get(i).tokens);
      assertThat(a.get(i).tokens).isBetween(SPEC.minDocTokens(), SPEC.maxDocTokens() + 300);
      assertThat(a.get(i).output).isBetween(SPEC.minOutput(), SPEC.maxOutput());
    }
  }
}
