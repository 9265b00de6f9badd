package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.WorkerId;
import io.infera.router.policy.PeerLoadTable.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The other replicas' load, without any wire: reports, ordering, expiry by a fake clock. */
class PeerLoadTableTest {

  private static final WorkerId W0 = WorkerId.of("w0");
  private static final WorkerId W1 = WorkerId.of("w1");

  private final AtomicLong clock = new AtomicLong(5_000_000_000L);
  private final PeerLoadTable table = new PeerLoadTable(Duration.ofSeconds(3), 2, clock::get);

  private static LoadTracker.Change c(WorkerId w, long seq, long active, int inFlight) {
    return new LoadTracker.Change(w, seq, active, inFlight, false, 0);
  }

  @Test
  void replicasTotalsAreSummedPerWorker() {
    assertThat(table.update(1, List.of(c(W0, 1, 10, 2)))).isEqualTo(Outcome.JOINED);
    assertThat(table.update(2, List.of(c(W0, 1, 5, 1), c(W1, 2, 7, 1)))).isEqualTo(Outcome.JOINED);
    assertThat(table.update(1, List.of(c(W0, 2, 12, 3)))).isEqualTo(Outcome.APPLIED);
    assertThat(table.remote(W0)).isEqualTo(new WorkerLoad(17, 0, 4));
    assertThat(table.remote(W1)).isEqualTo(new WorkerLoad(7, 0, 1));
    assertThat(table.remote(WorkerId.of("other"))).isEqualTo(WorkerLoad.IDLE);
    assertThat(table.replicas()).isEqualTo(2);
  }

  @ParameterizedTest(name = "seq {0} after seq 5 → active {1}")
  @CsvSource({"4, 10", "5, 20", "6, 20"})
  void aChangeOlderThanTheOneHeldIsIgnored(long seq, long expectedActive) {
    table.update(1, List.of(c(W0, 5, 10, 1)));
    table.update(1, List.of(c(W0, seq, 20, 1)));
    assertThat(table.remote(W0).activeBlocks()).isEqualTo(expectedActive);
  }

  @Test
  void aHeartbeatClearsWorkersItLeavesOutUnlessANewerChangeSaidMore() {
    table.update(1, List.of(c(W0, 3, 10, 1), c(W1, 8, 4, 1)));
    table.heartbeat(1, 6, List.of());
    // w0's change (seq 3) is covered by the heartbeat (seq 6): no load; w1's (seq 8) is newer.
    assertThat(table.remote(W0)).isEqualTo(WorkerLoad.IDLE);
    assertThat(table.remote(W1)).isEqualTo(new WorkerLoad(4, 0, 1));
    table.heartbeat(1, 9, List.of(c(W0, 9, 2, 1)));
    assertThat(table.remote(W0)).isEqualTo(new WorkerLoad(2, 0, 1));
    assertThat(table.remote(W1)).isEqualTo(WorkerLoad.IDLE);
  }

  @Test
  void aSilentReplicaExpiresAndOneHeardStaysCounted() {
    table.update(1, List.of(c(W0, 1, 10, 1)));
    table.update(2, List.of(c(W0, 1, 5, 1)));
    clock.addAndGet(Duration.ofSeconds(2).toNanos());
    table.heartbeat(2, 1, List.of(c(W0, 1, 5, 1)));
    clock.addAndGet(Duration.ofMillis(1500).toNanos());
    assertThat(table.expire())
        .containsExactly(new PeerLoadTable.Expired(1, Duration.ofMillis(3500).toNanos()));
    assertThat(table.remote(W0)).isEqualTo(new WorkerLoad(5, 0, 1));
    assertThat(table.expired()).isEqualTo(1);
    clock.addAndGet(Duration.ofMillis(1499).toNanos());
    assertThat(table.expire()).isEmpty();
    assertThat(table.replicas()).isEqualTo(1);
  }

  @Test
  void aReplicaThatLeavesStopsCountingAtOnce() {
    table.update(1, List.of(c(W0, 1, 10, 1)));
    assertThat(table.leave(1)).isTrue();
    assertThat(table.leave(1)).isFalse();
    assertThat(table.remote(W0)).isEqualTo(WorkerLoad.IDLE);
    assertThat(table.replicas()).isZero();
  }

  @Test
  void workersBeyondThePerReplicaBoundAreIgnored() {
    table.update(1, List.of(c(W0, 1, 1, 1), c(W1, 1, 1, 1), c(WorkerId.of("w2"), 1, 1, 1)));
    assertThat(table.remote(WorkerId.of("w2"))).isEqualTo(WorkerLoad.IDLE);
    assertThat(table.remote(W1)).isEqualTo(new WorkerLoad(1, 0, 1));
  }

  @Test
  void replicasBeyondTheBoundAreIgnoredUntilSomeExpire() {
    for (long r = 0; r < PeerLoadTable.MAX_REPLICAS; r++) {
      table.update(r, List.of(c(W0, 1, 1, 0)));
    }
    assertThat(table.update(-1, List.of(c(W0, 1, 1, 0)))).isEqualTo(Outcome.IGNORED);
    assertThat(table.remote(W0).activeBlocks()).isEqualTo(PeerLoadTable.MAX_REPLICAS);
  }

  @Test
  void aClosedTableForgetsEveryoneAndIgnoresReports() {
    table.update(1, List.of(c(W0, 1, 10, 1)));
    table.close();
    assertThat(table.remote(W0)).isEqualTo(WorkerLoad.IDLE);
    assertThat(table.update(1, List.of(c(W0, 2, 10, 1)))).isEqualTo(Outcome.IGNORED);
    assertThat(table.heartbeat(1, 2, List.of())).isEqualTo(Outcome.IGNORED);
    assertThat(table.replicas()).isZero();
  }

  @ParameterizedTest(name = "reported active {0}, in flight {1} → held {2}, {3}")
  @CsvSource({
    "4194304, 65536, 4194304, 65536",
    "4194305, 65537, 4194304, 65536",
    "9223372036854775807, 2147483647, 4194304, 65536",
  })
  void oneReplicasTotalsAreClampedAtTheCapsAndCounted(
      long active, int inFlight, long heldActive, int heldInFlight) {
    table.update(1, List.of(c(W0, 1, active, inFlight)));
    assertThat(table.remote(W0)).isEqualTo(new WorkerLoad(heldActive, 0, heldInFlight));
    assertThat(table.clamped()).isEqualTo(active == heldActive ? 0 : 1);
  }

  @Test
  void sumsOfHugeTotalsFromEveryReplicaNeitherOverflowNorPassTheirBound() {
    PeerLoadTable t = new PeerLoadTable(Duration.ofSeconds(3), 8, clock::get);
    for (long r = 0; r < PeerLoadTable.MAX_REPLICAS; r++) {
      t.update(r, List.of(c(W0, 1, Long.MAX_VALUE, Integer.MAX_VALUE)));
    }
    WorkerLoad l = t.remote(W0);
    assertThat(l.activeBlocks()).isEqualTo(PeerLoadTable.MAX_SUM_ACTIVE_BLOCKS);
    assertThat(l.inFlight()).isEqualTo(PeerLoadTable.MAX_SUM_IN_FLIGHT);
    // Taking them back out is exact: the sums were never clamped, only their reading.
    for (long r = 0; r < PeerLoadTable.MAX_REPLICAS; r++) {
      t.leave(r);
    }
    assertThat(t.remote(W0)).isEqualTo(WorkerLoad.IDLE);
    assertThat(t.workersWithLoad()).isZero();
  }

  @Test
  void replicasBeyondTheBoundAreIgnoredAndCountedUntilSomeExpire() {
    PeerLoadTable t = new PeerLoadTable(Duration.ofSeconds(3), 8, clock::get);
    for (long r = 0; r < PeerLoadTable.MAX_REPLICAS; r++) {
      assertThat(t.update(r, List.of(c(W0, 1, 1, 1)))).isEqualTo(Outcome.JOINED);
    }
    assertThat(t.update(-1, List.of(c(W0, 1, 1, 1)))).isEqualTo(Outcome.IGNORED);
    assertThat(t.ignoredReplicas()).isEqualTo(1);
    assertThat(t.replicas()).isEqualTo(PeerLoadTable.MAX_REPLICAS);
    clock.addAndGet(Duration.ofSeconds(4).toNanos());
    assertThat(t.expire()).hasSize(PeerLoadTable.MAX_REPLICAS);
    assertThat(t.update(-1, List.of(c(W0, 1, 1, 1)))).isEqualTo(Outcome.JOINED);
    assertThat(t.remote(W0)).isEqualTo(new WorkerLoad(1, 0, 1));
  }

  @Test
  void onceWorkersAreKnownReportsOnOthersAreIgnoredAndLeaversForgotten() {
    table.update(1, List.of(c(W0, 1, 10, 1), c(W1, 1, 20, 2)));
    table.workers(java.util.Set.of(W0));
    assertThat(table.remote(W1)).isEqualTo(WorkerLoad.IDLE);
    assertThat(table.remote(W0)).isEqualTo(new WorkerLoad(10, 0, 1));
    table.update(1, List.of(c(WorkerId.of("forged"), 2, 99, 9), c(W1, 2, 5, 1)));
    assertThat(table.remote(WorkerId.of("forged"))).isEqualTo(WorkerLoad.IDLE);
    assertThat(table.unknownWorkers()).isEqualTo(2);
    assertThat(table.workersWithLoad()).isEqualTo(1);
    // A known worker's slot of a full replica (max 2 workers) is still free: w1 was forgotten.
    table.workers(java.util.Set.of(W0, W1));
    table.update(1, List.of(c(W1, 3, 5, 1)));
    assertThat(table.remote(W1)).isEqualTo(new WorkerLoad(5, 0, 1));
  }
}
