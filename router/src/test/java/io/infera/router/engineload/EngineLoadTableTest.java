package io.infera.router.engineload;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.EngineLoadConfig;
import io.infera.router.config.Role;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.EngineTerm;
import io.infera.router.policy.LoadSnapshot;
import io.infera.router.policy.Worker;
import io.infera.router.policy.WorkerLoad;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class EngineLoadTableTest {

  private static final WorkerId W0 = WorkerId.of("w0");
  private static final WorkerId W1 = WorkerId.of("w1");
  private static final EngineLoadConfig ON =
      new EngineLoadConfig(true, 100, 100, 1000, 1.0, 1 << 20, Set.of(), Set.of());

  private final AtomicLong now = new AtomicLong(10_000);

  private static EngineStats stats(double running, double waiting, double kv) {
    return stats(running, waiting, kv, Double.NaN, Double.NaN);
  }

  private static EngineStats stats(
      double running, double waiting, double kv, double queries, double hits) {
    return new EngineStats(
        List.of(new EngineStats.Rank(0, running, waiting, kv, queries, hits)), "vllm");
  }

  @Test
  void unseenRequestsCostTheMeanBookedBlocks() {
    EngineLoadTable t = new EngineLoadTable(ON, now::get);
    for (int i = 0; i < 50; i++) {
      t.booked(W0, 20, 5);
    }
    t.report(W0, stats(5, 3, 0.5), 2); // 8 on the engine, 2 of them ours
    now.addAndGet(40);
    EngineTerm e = t.term(W0);
    assertThat(e.known()).isTrue();
    assertThat(e.ageMs()).isEqualTo(40);
    assertThat(e.engineRequests()).isEqualTo(8.0);
    assertThat(e.blocks()).isEqualTo(6 * 20.0);
  }

  @Test
  void theKvPenaltyRisesFromTheKneeToOneMeanRequestWhenFull() {
    assertThat(EngineTerm.of(0, 0.9, 0, 10, 1, 0).blocks()).isZero();
    assertThat(EngineTerm.of(0, 0.95, 0, 10, 1, 0).blocks()).isCloseTo(5.0, within());
    assertThat(EngineTerm.of(0, 1.0, 0, 10, 1, 0).blocks()).isCloseTo(10.0, within());
    assertThat(EngineTerm.of(4, 1.0, 1, 10, 0.5, 0).blocks()).isCloseTo(20.0, within());
    // Fewer engine requests than ours (a request the engine has not seen yet): nothing unseen.
    assertThat(EngineTerm.of(1, Double.NaN, 5, 10, 1, 0).blocks()).isZero();
    assertThat(EngineTerm.of(Double.NaN, Double.NaN, 0, 10, 1, 0).blocks()).isZero();
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-9);
  }

  @Test
  void aSnapshotAtTheStalenessLimitCountsOnePastItIsUnknown() {
    EngineLoadTable t = new EngineLoadTable(ON, now::get);
    t.report(W0, stats(3, 0, 0), 0);
    now.addAndGet(1000);
    assertThat(t.term(W0).known()).isTrue();
    now.addAndGet(1);
    assertThat(t.term(W0)).isEqualTo(EngineTerm.UNKNOWN);
  }

  @Test
  void aFailedScrapeMakesTheWorkerUnknown() {
    EngineLoadTable t = new EngineLoadTable(ON, now::get);
    t.report(W0, stats(3, 0, 0), 0);
    assertThat(t.term(W0).blocks()).isPositive();
    t.failed(W0, ScrapeOutcome.TIMEOUT);
    assertThat(t.term(W0)).isEqualTo(EngineTerm.UNKNOWN);
    assertThat(t.scrapes(W0, ScrapeOutcome.TIMEOUT)).isEqualTo(1);
    assertThat(t.scrapes(W0, ScrapeOutcome.OK)).isEqualTo(1);
  }

  @Test
  void termsJoinTheSnapshotOnlyForKnownWorkersAndOnlyWhenEnabled() {
    LoadSnapshot base = new LoadSnapshot(Map.of(W0, new WorkerLoad(10, 0, 1)), 7);
    List<Worker> cands = List.of(new Worker(W0, Role.MIXED), new Worker(W1, Role.MIXED));
    EngineLoadTable t = new EngineLoadTable(ON, now::get);
    t.report(W0, stats(4, 0, 0), 1);
    LoadSnapshot s = t.withTerms(cands, base);
    assertThat(s.engine(W0).blocks()).isEqualTo(3.0); // no booking yet: one block a request
    assertThat(s.engine(W1)).isEqualTo(EngineTerm.UNKNOWN);
    assertThat(s.ticket()).isEqualTo(7);
    assertThat(s.of(W0)).isEqualTo(base.of(W0));

    EngineLoadTable off = new EngineLoadTable(ON.withEnabled(false), now::get);
    off.report(W0, stats(4, 0, 0), 1);
    assertThat(off.withTerms(cands, base)).isSameAs(base);
    assertThat(off.term(W0)).isEqualTo(EngineTerm.UNKNOWN);
  }

  @Test
  void aWorkerWithoutBookingsUsesTheFleetMean() {
    EngineLoadTable t = new EngineLoadTable(ON, now::get);
    t.booked(W1, 30, 0);
    t.report(W0, stats(2, 0, 0), 0);
    assertThat(t.term(W0).blocks()).isEqualTo(60.0);
  }

  @Test
  void prefixHitRatiosOfTheEngineAndOfTheRouterSideBySide() {
    EngineLoadTable t = new EngineLoadTable(ON, now::get);
    t.report(W0, stats(0, 0, 0, 1000, 900), 0); // before the router looked: not counted
    t.report(W0, stats(0, 0, 0, 1100, 950), 0);
    t.report(W0, stats(0, 0, 0, 1300, 1000), 0);
    assertThat(t.view(W0).engineHitRatio()).isCloseTo(100.0 / 300, within());
    // The engine restarted: its counters start again from 0.
    t.report(W0, stats(0, 0, 0, 50, 10), 0);
    t.report(W0, stats(0, 0, 0, 150, 60), 0);
    assertThat(t.view(W0).engineHitRatio()).isCloseTo(150.0 / 400, within());
    t.booked(W0, 10, 4);
    t.booked(W0, 10, 6);
    t.booked(W0, 5, 99); // more hits than blocks cannot be: capped
    assertThat(t.view(W0).predictedHitRatio()).isCloseTo(15.0 / 25, within());
  }

  @Test
  void meterSeriesFollowTheWorkers() {
    SimpleMeterRegistry reg = new SimpleMeterRegistry();
    EngineLoadTable t = new EngineLoadTable(ON, now::get);
    t.bindTo(reg);
    t.report(W0, stats(2, 1, 0.5), 0);
    t.failed(W0, ScrapeOutcome.TOO_LARGE);
    assertThat(
            reg.get("infera.engine.scrapes")
                .tag("worker", "w0")
                .tag("result", "too_large")
                .functionCounter()
                .count())
        .isEqualTo(1.0);
    assertThat(reg.get("infera.engine.load.age.seconds").tag("worker", "w0").gauge().value())
        .isNaN();
    t.report(W0, stats(2, 1, 0.5), 0);
    now.addAndGet(1500);
    assertThat(reg.get("infera.engine.load.age.seconds").tag("worker", "w0").gauge().value())
        .isEqualTo(1.5);
    t.forget(W0);
    assertThat(reg.find("infera.engine.scrapes").tag("worker", "w0").meters()).isEmpty();
  }
}
