package io.infera.router.policy.tuner;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.OverlapWeightMode;
import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.router.config.Role;
import io.infera.router.config.TunerConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OverlapTuningTest {

  @Test
  void fixedModeUsesTheConfiguredWeightPerRoleAndIssuesNoProbes() {
    OverlapTuning t = new OverlapTuning(new PolicyConfig(PolicyName.KV_AWARE, 3.0, 20.0, null));
    assertThat(t.tunes()).isFalse();
    assertThat(t.weight("p", Role.MIXED)).isEqualTo(3.0);
    assertThat(t.weight("p", Role.PREFILL)).isEqualTo(20.0);
    assertThat(t.weight("p", Role.DECODE)).isEqualTo(3.0);
    assertThat(t.booked("p", Role.MIXED, 10)).isNull();
    assertThat(t.status())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.mode()).isEqualTo(OverlapWeightMode.FIXED);
              assertThat(s.s().weight()).isEqualTo(3.0);
            });
    assertThat(t.estimates()).isEmpty();
  }

  @Test
  void autoModeTunesEachPoolAndRoleOnItsOwn() {
    OverlapTuning t = new OverlapTuning(PolicyConfig.tuned(PolicyName.KV_AWARE));
    assertThat(t.tunes()).isTrue();
    // Reading a weight has no side effect beyond creating the pool's tuner.
    double w = t.weight("a", Role.PREFILL);
    assertThat(w).isEqualTo(t.weight("a", Role.PREFILL));
    Probe p = t.booked("a", Role.PREFILL, 8);
    assertThat(p.weight()).isEqualTo(w);
    t.booked("a", Role.DECODE, 8);
    t.booked("b", Role.MIXED, 8);
    assertThat(t.status())
        .extracting(s -> s.pool() + "/" + s.role())
        .containsExactly("a/PREFILL", "a/DECODE", "b/MIXED");
  }

  @Test
  void leastLoadedAndRoundRobinNeverTune() {
    assertThat(new OverlapTuning(PolicyConfig.tuned(PolicyName.LEAST_LOADED)).tunes()).isFalse();
    assertThat(new OverlapTuning(PolicyConfig.tuned(PolicyName.ROUND_ROBIN)).tunes()).isFalse();
    assertThat(new OverlapTuning(PolicyConfig.tuned(PolicyName.APPROX_PREFIX)).tunes()).isTrue();
  }

  @Test
  void theNumberOfPoolsIsBounded() {
    OverlapTuning t = new OverlapTuning(PolicyConfig.tuned(PolicyName.KV_AWARE));
    for (int i = 0; i < OverlapTuning.MAX_TUNERS + 10; i++) {
      t.booked("pool-" + i, Role.MIXED, 1);
    }
    assertThat(t.status()).hasSize(OverlapTuning.MAX_TUNERS);
    // Past the limit a pool is scored at the initial weight and teaches nothing.
    assertThat(t.weight("one-too-many", Role.MIXED)).isEqualTo(TunerConfig.DEFAULT_INITIAL_WEIGHT);
    assertThat(t.booked("one-too-many", Role.MIXED, 1)).isNull();
  }

  @Test
  void peersAreMergedBySampleWeightedGeometricMeanWithOneStepHysteresis() {
    OverlapTuning t = new OverlapTuning(fromOne());
    t.booked("p", Role.MIXED, 1).firstToken(5, true);
    // one peer with as little evidence, one grid step above: the mean is half a step away
    double step = Math.pow(2, WeightTuner.STEP_LOG2);
    t.mergePeer("r1", List.of(new OverlapTuning.Estimate("p", Role.MIXED, step, 1)), 0);
    assertThat(t.status().get(0).s().weight()).isEqualTo(1.0);
    // a peer with far more evidence two steps above pulls it
    t.mergePeer("r2", List.of(new OverlapTuning.Estimate("p", Role.MIXED, step * step, 10_000)), 1);
    assertThat(t.status().get(0).s().weight()).isGreaterThan(1.0);
    // invalid estimates (already refused by the codec) are ignored here too
    t.mergePeer("r3", List.of(new OverlapTuning.Estimate("p", Role.MIXED, Double.NaN, 5)), 2);
    t.mergePeer("r3", List.of(new OverlapTuning.Estimate("p", Role.MIXED, -1, 5)), 2);
  }

  @Test
  void peersExpire() {
    OverlapTuning t = new OverlapTuning(fromOne());
    t.booked("p", Role.MIXED, 1);
    t.mergePeer("r1", List.of(new OverlapTuning.Estimate("p", Role.MIXED, 32, 100_000)), 0);
    double pulled = t.status().get(0).s().weight();
    assertThat(pulled).isGreaterThan(1.0);
    // long after r1 went silent, a low peer alone decides
    t.mergePeer(
        "r2",
        List.of(new OverlapTuning.Estimate("p", Role.MIXED, 0.25, 100_000)),
        OverlapTuning.PEER_TTL_MS + 1);
    assertThat(t.status().get(0).s().weight()).isLessThan(pulled);
  }

  @Test
  void theListenerHearsOfEveryPoolOnce() {
    OverlapTuning t = new OverlapTuning(PolicyConfig.tuned(PolicyName.KV_AWARE));
    t.booked("early", Role.MIXED, 1);
    List<String> heard = new ArrayList<>();
    t.listen((pool, role, tuner) -> heard.add(pool + "/" + role + "/" + (tuner != null)));
    t.booked("late", Role.DECODE, 1);
    t.booked("late", Role.DECODE, 1);
    assertThat(heard).containsExactly("early/MIXED/true", "late/DECODE/true");
  }

  /** The router's default tuning, starting at 1.0 (these tests count grid steps from there). */
  private static PolicyConfig fromOne() {
    return new PolicyConfig(
        PolicyName.KV_AWARE,
        PolicyConfig.DEFAULT_OVERLAP_WEIGHT,
        null,
        null,
        io.infera.router.config.OverlapWeightMode.AUTO,
        new TunerConfig(
            TunerConfig.DEFAULT_MIN_WEIGHT,
            TunerConfig.DEFAULT_MAX_WEIGHT,
            1.0,
            TunerConfig.DEFAULT_EPOCH_REQUESTS));
  }
}
