package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.config.EngineLoadConfig;
import io.infera.router.config.PolicyName;
import io.infera.router.engineload.ScrapeOutcome;
import io.infera.router.kv.WorkerId;
import io.infera.sim.bench.report.RequestResult;
import io.infera.sim.workload.Workload;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The virtual-time bench models scrapes and traffic the router does not see. */
class VirtualClusterEngineLoadTest {

  private static final FleetSpec FLEET = FleetSpec.of(4, 2048);
  private static final EngineLoadConfig ON =
      new EngineLoadConfig(true, 100, 1000, 1000, 1.0, 4 << 20, Set.of(), Set.of());

  private static Workload workload() {
    return StandardWorkloads.of("shared-prefix", FLEET, 0.7, 300, null).apply(1);
  }

  private static VirtualCluster cluster(VirtualCluster.Options o) {
    return new VirtualCluster(FLEET, Arm.policy(PolicyName.KV_AWARE), 1, o);
  }

  private static List<Double> ttfts(VirtualCluster.Run run) {
    return run.results().stream().map(RequestResult::ttftMs).toList();
  }

  @Test
  void everyEngineIsScrapedEachIntervalWhileTrafficLasts() {
    VirtualCluster c = cluster(new VirtualCluster.Options(ON, 5, 0));
    VirtualCluster.Run run = c.run(workload());
    assertThat(run.results()).hasSizeGreaterThan(100);
    long expected = (long) (run.durationMs() / ON.intervalMs());
    for (int i = 0; i < FLEET.workers(); i++) {
      long ok = c.engineLoad().scrapes(WorkerId.of("w" + i), ScrapeOutcome.OK);
      assertThat(ok).as("w%d", i).isBetween(expected - 2, expected + 3);
    }
  }

  @Test
  void offIsTheDefaultClusterExactly() {
    VirtualCluster.Run plain =
        new VirtualCluster(FLEET, Arm.policy(PolicyName.KV_AWARE), 1).run(workload());
    VirtualCluster.Run off =
        cluster(new VirtualCluster.Options(ON.withEnabled(false), 5, 0)).run(workload());
    assertThat(ttfts(off)).isEqualTo(ttfts(plain));
  }

  /** The share of requests two arms sent to the same worker. */
  private static double agreement(double unrouted) {
    VirtualCluster.Options o = new VirtualCluster.Options(ON, 5, unrouted);
    List<RequestResult> kv = cluster(o).run(workload()).results();
    List<RequestResult> rr =
        new VirtualCluster(FLEET, Arm.policy(PolicyName.ROUND_ROBIN), 1, o)
            .run(workload())
            .results();
    java.util.Map<String, String> where = new java.util.HashMap<>();
    kv.forEach(r -> where.put(r.sessionId() + "/" + r.turn(), r.worker()));
    long same =
        rr.stream()
            .filter(r -> r.worker().equals(where.get(r.sessionId() + "/" + r.turn())))
            .count();
    return (double) same / rr.size();
  }

  @Test
  void unroutedRequestsGoToTheSameEngineInEveryArm() {
    // Half the requests bypass both routers to the same hashed engine: at least that half agree
    // (the routed rest agree by chance, about one in four workers); with none unrouted far fewer.
    assertThat(agreement(0.5)).isGreaterThanOrEqualTo(0.5);
    assertThat(agreement(0)).isLessThan(0.45);
  }

  @Test
  void optionsAreChecked() {
    assertThatThrownBy(() -> new VirtualCluster.Options(ON, -1, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new VirtualCluster.Options(ON, 0, 1.01))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new VirtualCluster.Options(ON, 0, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
