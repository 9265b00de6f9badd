package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.infera.router.config.OverlapWeightMode;
import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.sim.bench.report.ArmSummary;
import io.infera.sim.sched.EngineConfig;
import io.infera.sim.workload.TraceWorkload;
import io.infera.sim.workload.Workload;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The self-tuning overlap weight (the router's default) against the old fixed default 1.0, in
 * virtual time with the production router: deterministic, not timed.
 */
class TunedWeightTest {

  private static final List<Arm> KV = List.of(Arm.policy(PolicyName.KV_AWARE));

  private static FleetSpec fleet(int blocks, OverlapWeightMode mode) {
    return new FleetSpec(
        8, blocks, 16, EngineConfig.defaults(), 2.0, PolicyConfig.DEFAULT_OVERLAP_WEIGHT, mode);
  }

  private static ArmSummary kvAware(FleetSpec fleet, IntFunction<Workload> w, List<Integer> seeds)
      throws Exception {
    List<String> workers = new ArrayList<>();
    for (int i = 0; i < fleet.workers(); i++) {
      workers.add("w" + i);
    }
    BenchRunner.Result r = BenchRunner.run(BenchRunner.virtual(fleet), KV, seeds, w, workers, null);
    ArmSummary a = r.arms().get(0);
    assertThat(a.errors()).isZero();
    return a;
  }

  @Test
  void theDefaultFleetTunes() {
    assertThat(FleetSpec.of(8, 2048).policy(PolicyName.KV_AWARE).tunes()).isTrue();
    assertThat(fleet(2048, OverlapWeightMode.FIXED).policy(PolicyName.KV_AWARE).tunes()).isFalse();
  }

  @Test
  void onSharedPrefixTheTunedWeightBeatsOnePointZero() throws Exception {
    List<Integer> seeds = List.of(1, 2, 3);
    FleetSpec auto = fleet(2048, OverlapWeightMode.AUTO);
    FleetSpec one = fleet(2048, OverlapWeightMode.FIXED);
    ArmSummary tuned =
        kvAware(auto, StandardWorkloads.of("shared-prefix", auto, 0.7, null, null), seeds);
    ArmSummary fixed =
        kvAware(one, StandardWorkloads.of("shared-prefix", one, 0.7, null, null), seeds);
    assertThat(tuned.ttftP50Ms()).as("tuned p50 vs 1.0").isLessThan(0.75 * fixed.ttftP50Ms());
    assertThat(tuned.ttftP90Ms()).as("tuned p90 vs 1.0").isLessThan(fixed.ttftP90Ms());
    assertThat(tuned.hitRatio()).isGreaterThan(fixed.hitRatio());
  }

  @Test
  void withoutReuseTheTunedWeightCostsNothing() throws Exception {
    List<Integer> seeds = List.of(1, 2, 3);
    FleetSpec auto = fleet(2048, OverlapWeightMode.AUTO);
    FleetSpec one = fleet(2048, OverlapWeightMode.FIXED);
    ArmSummary tuned =
        kvAware(auto, StandardWorkloads.of("no-reuse", auto, 0.7, null, null), seeds);
    ArmSummary fixed = kvAware(one, StandardWorkloads.of("no-reuse", one, 0.7, null, null), seeds);
    assertThat(tuned.ttftP50Ms()).isLessThanOrEqualTo(1.02 * fixed.ttftP50Ms());
    assertThat(tuned.ttftP90Ms()).isLessThanOrEqualTo(1.02 * fixed.ttftP90Ms());
  }

  /**
   * A slice of the Mooncake synthetic trace (the first 2,000 requests at 4× speed, 32,768 blocks
   * per worker), bundled with the simulator's resources (skipped until they hold it). Measured on
   * the per-pick load model: p50 103.8 vs 123.4 ms, p90 735.3 vs 755.6 ms, hit ratio 0.117 vs
   * 0.082; on the time-based load model the p90s are equal to 0.01 % (743.56 vs 743.54 ms), so p90
   * may be at most 2 % worse: the tuner is for the median, where the cache pays.
   */
  @Test
  void onASliceOfTheMooncakeTraceTheTunedWeightBeatsOnePointZero(@TempDir Path dir)
      throws Exception {
    InputStream gz =
        TunedWeightTest.class.getResourceAsStream(
            "/io/infera/sim/traces/mooncake_synthetic.jsonl.gz");
    assumeTrue(gz != null, "the bundled Mooncake trace (sim resources) is not on the classpath");
    Path file = dir.resolve("mooncake_synthetic.jsonl");
    try (InputStream in = new GZIPInputStream(gz)) {
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
    }
    TraceWorkload.Options opts =
        TraceWorkload.Options.defaults().withSpeedup(4).withMaxRequests(2000);
    IntFunction<Workload> w =
        seed -> {
          try {
            return TraceWorkload.load(file, opts.withSeed(seed));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        };
    List<Integer> seeds = List.of(1);
    ArmSummary tuned = kvAware(fleet(32768, OverlapWeightMode.AUTO), w, seeds);
    ArmSummary fixed = kvAware(fleet(32768, OverlapWeightMode.FIXED), w, seeds);
    assertThat(tuned.ttftP50Ms()).as("tuned p50 vs 1.0").isLessThan(0.9 * fixed.ttftP50Ms());
    assertThat(tuned.ttftP90Ms())
        .as("tuned p90 vs 1.0")
        .isLessThanOrEqualTo(1.02 * fixed.ttftP90Ms());
    assertThat(tuned.hitRatio()).isGreaterThan(fixed.hitRatio());
  }
}
