package io.infera.sim.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ArrivalsTest {

  @Test
  void fixedRateHasEqualGapsFromZero() {
    double[] t = Arrivals.fixedRate(4).startTimes(5, 1);
    assertThat(t).containsExactly(0, 250, 500, 750, 1000);
  }

  @Test
  void poissonGapsAverageOneOverTheRate() {
    int n = 20_000;
    double[] t = Arrivals.poisson(50).startTimes(n, 3);
    assertThat(t[0]).isZero();
    for (int i = 1; i < n; i++) {
      assertThat(t[i]).isGreaterThanOrEqualTo(t[i - 1]);
    }
    double meanGap = t[n - 1] / (n - 1);
    assertThat(meanGap).isCloseTo(20.0, within(0.6)); // 20 ms ± 3 %: ~4 standard errors
    // Exponential gaps: the standard deviation equals the mean (a fixed rate would give 0).
    double sumSq = 0;
    for (int i = 1; i < n; i++) {
      double d = t[i] - t[i - 1] - meanGap;
      sumSq += d * d;
    }
    assertThat(Math.sqrt(sumSq / (n - 2))).isCloseTo(20.0, within(1.5));
  }

  @Test
  void sameSeedSameTimesOtherSeedOtherTimes() {
    Arrivals a = Arrivals.poisson(10);
    assertThat(a.startTimes(50, 9)).containsExactly(a.startTimes(50, 9));
    assertThat(a.startTimes(50, 9)).isNotEqualTo(a.startTimes(50, 10));
  }

  @Test
  void burstStartsEverythingAtOnceAndSpreadFillsTheWindow() {
    assertThat(Arrivals.burst().startTimes(3, 1)).containsExactly(0, 0, 0);
    Arrivals spread = Arrivals.spread(Arrivals.Process.FIXED, 10, 5_000);
    assertThat(spread.ratePerSec()).isEqualTo(2.0);
    assertThat(spread.startTimes(10, 1)[9]).isEqualTo(4_500);
  }

  @Test
  void nonPositiveRatesAreRefused() {
    assertThatThrownBy(() -> Arrivals.poisson(0)).hasMessageContaining("ratePerSec");
    assertThatThrownBy(() -> Arrivals.fixedRate(Double.NaN)).hasMessageContaining("ratePerSec");
    assertThatThrownBy(() -> Arrivals.spread(Arrivals.Process.POISSON, 5, 0))
        .hasMessageContaining("windowMs");
  }
}
