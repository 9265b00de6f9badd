package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.PolicyName;
import io.infera.sim.bench.report.ArmSummary;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The routing-quality gate: the targets on 8 simulated workers, in virtual time, over 3
 * seeds, with the production policy, index and load-tracking code. A change that makes routing
 * worse fails the build here.
 */
class RoutingQualityGateTest {

  static final FleetSpec FLEET = FleetSpec.of(8, 2048);
  static final List<Integer> SEEDS = List.of(1, 2, 3);

  static ArmSummary arm(List<ArmSummary> arms, String name) {
    return arms.stream().filter(a -> a.policy().equals(name)).findFirst().orElseThrow();
  }

  static List<ArmSummary> run(String workload, double kvFraction, List<Arm> arms) throws Exception {
    List<String> workers = new ArrayList<>();
    for (int i = 0; i < FLEET.workers(); i++) {
      workers.add("w" + i);
    }
    BenchRunner.Result r =
        BenchRunner.run(
            BenchRunner.virtual(FLEET),
            arms,
            SEEDS,
            StandardWorkloads.of(workload, FLEET, kvFraction, null, null),
            workers,
            null);
    for (ArmSummary a : r.arms()) {
      assertThat(a.errors()).as(a.policy() + " errors").isZero();
      assertThat(a.seeds()).isEqualTo(SEEDS.size());
    }
    return r.arms();
  }

  @ParameterizedTest(name = "working set {0} of fleet KV")
  @ValueSource(doubles = {0.6, 0.7, 0.8})
  void sharedPrefixKvAwareCutsTtftP90TenfoldAndHitsLikeTheOracle(double fraction) throws Exception {
    List<ArmSummary> arms =
        run(
            "shared-prefix",
            fraction,
            List.of(
                Arm.policy(PolicyName.KV_AWARE), Arm.policy(PolicyName.ROUND_ROBIN), Arm.oracle()));
    ArmSummary kv = arm(arms, "kv-aware");
    ArmSummary rr = arm(arms, "round-robin");
    assertThat(rr.ttftP90Ms() / kv.ttftP90Ms())
        .as("round-robin p90 / kv-aware p90")
        .isGreaterThanOrEqualTo(10);
    assertThat(kv.hitRatioVsOracle())
        .as("kv-aware hit ratio vs oracle")
        .isGreaterThanOrEqualTo(0.9);
  }

  /**
   * Turn-by-turn chat: concentrating a conversation on the worker that holds its history is right
   * while that worker is not busy, so the gate is on time to first token, not on equal shares.
   */
  @Test
  void multiTurnKvAwareCutsTtftAndHitsLikeTheOracle() throws Exception {
    List<ArmSummary> arms =
        run(
            "multi-turn",
            0.7,
            List.of(
                Arm.policy(PolicyName.KV_AWARE),
                Arm.policy(PolicyName.LEAST_LOADED),
                Arm.oracle()));
    ArmSummary kv = arm(arms, "kv-aware");
    ArmSummary ll = arm(arms, "least-loaded");
    assertThat(kv.ttftP50Ms())
        .as("kv-aware TTFT p50 vs least-loaded")
        .isLessThanOrEqualTo(0.85 * ll.ttftP50Ms());
    assertThat(kv.ttftP90Ms())
        .as("kv-aware TTFT p90 vs least-loaded")
        .isLessThanOrEqualTo(ll.ttftP90Ms());
    assertThat(kv.hitRatioVsOracle())
        .as("kv-aware hit ratio vs oracle")
        .isGreaterThanOrEqualTo(0.9);
    // The oracle shares the policy code: also demand a clear win over cache-blind routing.
    assertThat(kv.hitRatio())
        .as("kv-aware hit ratio vs least-loaded")
        .isGreaterThanOrEqualTo(1.2 * ll.hitRatio());
  }

  @Test
  void noReuseKvAwareCostsNothingAgainstLeastLoaded() throws Exception {
    List<ArmSummary> arms =
        run(
            "no-reuse",
            0.7,
            List.of(Arm.policy(PolicyName.KV_AWARE), Arm.policy(PolicyName.LEAST_LOADED)));
    ArmSummary kv = arm(arms, "kv-aware");
    ArmSummary ll = arm(arms, "least-loaded");
    assertThat(kv.ttftP50Ms()).as("kv-aware TTFT p50").isLessThanOrEqualTo(1.05 * ll.ttftP50Ms());
    assertThat(kv.maxMinShare()).as("kv-aware max/min share").isLessThanOrEqualTo(1.2);
  }
}
