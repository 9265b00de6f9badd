package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.WorkerId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * Whatever replicas report (extreme totals, forged workers, any order), the sums a pick reads stay
 * within their bounds and never go negative, only known workers carry load, and once every replica
 * left nothing is left over (the exact sums never drifted).
 */
class PeerLoadTableProperties {

  private static final List<WorkerId> KNOWN =
      List.of(WorkerId.of("w0"), WorkerId.of("w1"), WorkerId.of("w2"));

  @Property(tries = 200)
  void sumsStayBoundedAndReturnToIdle(@ForAll @LongRange(min = 0, max = 1L << 40) long seed) {
    Random r = new Random(seed);
    long[] clock = {0};
    PeerLoadTable t = new PeerLoadTable(Duration.ofSeconds(3), 64, () -> clock[0]);
    t.workers(Set.copyOf(KNOWN));
    for (int op = 0; op < 300; op++) {
      long replica = r.nextInt(20);
      List<LoadTracker.Change> changes = new ArrayList<>();
      for (int i = r.nextInt(5); i > 0; i--) {
        WorkerId w =
            r.nextInt(4) == 0 ? WorkerId.of("forged-" + r.nextInt(50)) : KNOWN.get(r.nextInt(3));
        long active = r.nextInt(3) == 0 ? Long.MAX_VALUE - r.nextInt(10) : r.nextInt(1000);
        int inFlight = r.nextInt(3) == 0 ? Integer.MAX_VALUE - r.nextInt(10) : r.nextInt(100);
        changes.add(new LoadTracker.Change(w, r.nextInt(1000), active, inFlight, false, 0));
      }
      switch (r.nextInt(4)) {
        case 0 -> t.heartbeat(replica, r.nextInt(1000), changes);
        case 1 -> t.leave(replica);
        default -> t.update(replica, changes);
      }
      for (WorkerId w : KNOWN) {
        WorkerLoad l = t.remote(w);
        assertThat(l.activeBlocks()).isBetween(0L, PeerLoadTable.MAX_SUM_ACTIVE_BLOCKS);
        assertThat(l.inFlight()).isBetween(0, PeerLoadTable.MAX_SUM_IN_FLIGHT);
      }
      assertThat(t.remote(WorkerId.of("forged-" + r.nextInt(50)))).isEqualTo(WorkerLoad.IDLE);
      assertThat(t.workersWithLoad()).isLessThanOrEqualTo(KNOWN.size());
    }
    for (long replica = 0; replica < 20; replica++) {
      t.leave(replica);
    }
    assertThat(t.workersWithLoad()).isZero();
    assertThat(t.replicas()).isZero();
  }
}
