package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.PolicyName;
import io.infera.sim.bench.report.MultimodalStats;
import io.infera.sim.bench.report.RequestResult;
import io.infera.sim.workload.Workload;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The multimodal workload in virtual time on 4 simulated engines (the target): under
 * moderate load (the workload's default, 6 requests per second per worker), repeat images reach a
 * warm worker (one that served them before) at least 95 % of the time with kv-aware, against what
 * load balancing alone does; and the engines' cache hits follow. Prints the measured numbers.
 */
class MultimodalAffinityGateTest {

  static final FleetSpec FLEET = FleetSpec.of(4, 4096);

  record Measured(MultimodalStats mm, double cachedFraction, double ttftP50) {}

  private static Measured run(Arm arm, Double rate, int seed) {
    Workload w = StandardWorkloads.of("multimodal", FLEET, 0.5, null, rate).apply(seed);
    VirtualCluster.Run r = new VirtualCluster(FLEET, arm, seed).run(w);
    long prompt = 0;
    long cached = 0;
    double[] ttft = new double[r.results().size()];
    int i = 0;
    for (RequestResult x : r.results()) {
      assertThat(x.error()).as("request error").isFalse();
      prompt += x.promptTokens();
      cached += x.cachedTokens();
      ttft[i++] = x.ttftMs();
    }
    java.util.Arrays.sort(ttft);
    Measured m = new Measured(r.multimodal(), (double) cached / prompt, ttft[ttft.length / 2]);
    System.out.printf(
        Locale.ROOT,
        "multimodal arm=%s rate=%s seed=%d requests=%d repeat_images=%d to_warm=%d (%.1f %%)"
            + " router_affinity_hits=%d cached_tokens=%.1f %% ttft_p50_ms=%.1f%n",
        arm.name(),
        rate == null ? "default" : rate,
        seed,
        m.mm().requests(),
        m.mm().repeatImages(),
        m.mm().repeatToWarm(),
        100 * m.mm().warmFraction(),
        m.mm().routerAffinityHits(),
        100 * m.cachedFraction(),
        m.ttftP50());
    return m;
  }

  @Test
  void repeatImagesReachTheWarmWorkerUnderModerateLoad() {
    for (int seed : List.of(1, 2)) {
      Measured kv = run(Arm.policy(PolicyName.KV_AWARE), null, seed);
      Measured least = run(Arm.policy(PolicyName.LEAST_LOADED), null, seed);
      assertThat(kv.mm().requests()).isEqualTo(800);
      assertThat(kv.mm().repeatImages()).isGreaterThan(300);
      assertThat(kv.mm().warmFraction())
          .as("kv-aware repeat images to a warm worker")
          .isGreaterThanOrEqualTo(0.95);
      assertThat(kv.mm().routerAffinityHits()).isGreaterThanOrEqualTo(kv.mm().repeatToWarm());
      assertThat(least.mm().warmFraction()).isLessThan(kv.mm().warmFraction());
      assertThat(kv.cachedFraction()).isGreaterThan(least.cachedFraction());
    }
  }

  /** Past moderate load the holder is often busy: load wins more often, affinity still helps. */
  @Test
  void underHeavierLoadAffinityStillBeatsLoadBalancing() {
    for (double perWorker : new double[] {12, 20}) {
      double rate = perWorker * FLEET.workers();
      Measured kv = run(Arm.policy(PolicyName.KV_AWARE), rate, 1);
      Measured least = run(Arm.policy(PolicyName.LEAST_LOADED), rate, 1);
      assertThat(kv.mm().warmFraction()).isGreaterThan(least.mm().warmFraction());
    }
  }
}
