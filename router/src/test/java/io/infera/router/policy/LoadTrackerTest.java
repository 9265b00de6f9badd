package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infera.router.config.Role;
import io.infera.router.kv.WorkerId;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadTrackerTest {

  private static final WorkerId A = WorkerId.of("a");
  private static final WorkerId B = WorkerId.of("b");

  private final LoadTracker tracker = new LoadTracker();

  @Test
  void activeBlocksCountDistinctInFlightBlocks() {
    Booking one = tracker.book(A, new long[] {1, 2, 3}, 3);
    Booking two = tracker.book(A, new long[] {1, 2, 9}, 1);
    assertThat(tracker.load(A).activeBlocks()).isEqualTo(4);
    assertThat(tracker.load(A).inFlight()).isEqualTo(2);
    one.close();
    assertThat(tracker.load(A).activeBlocks()).isEqualTo(3);
    two.close();
    assertThat(tracker.load(A).activeBlocks()).isZero();
    assertThat(tracker.load(A).inFlight()).isZero();
  }

  @Test
  void aBookingReleasesExactlyOnce() {
    Booking b = tracker.book(A, new long[] {1}, 1);
    Booking other = tracker.book(A, new long[] {1}, 0);
    assertThat(b.release()).isTrue();
    assertThat(b.release()).isFalse();
    b.close();
    assertThat(b.isOpen()).isFalse();
    // The second close must not release the other request's reference.
    assertThat(tracker.load(A).activeBlocks()).isEqualTo(1);
    assertThat(tracker.load(A).inFlight()).isEqualTo(1);
    other.close();
    assertThat(tracker.load(A).activeBlocks()).isZero();
  }

  @Test
  void recentChargesDecayPerPickAndDropBelowTheFloor() {
    tracker.book(A, new long[] {1, 2, 3, 4}, 4).close();
    assertThat(tracker.load(A).recentBlocks()).isCloseTo(4.0, within(1e-12));
    tracker.book(B, new long[0], 0).close();
    assertThat(tracker.load(A).recentBlocks()).isCloseTo(4 * 0.97, within(1e-12));
    assertThat(tracker.load(B).recentBlocks()).isCloseTo(1.0, within(1e-12));
    for (int i = 0; i < 10; i++) {
      tracker.book(B, new long[0], 0).close();
    }
    assertThat(tracker.load(A).recentBlocks()).isCloseTo(4 * Math.pow(0.97, 11), within(1e-12));
    // 4 × 0.97^n < 1e-3 once n > 272
    for (int i = 0; i < 262; i++) {
      tracker.book(B, new long[0], 0).close();
    }
    assertThat(tracker.load(A).recentBlocks()).isZero();
  }

  @Test
  void aPickIsChargedItsMissedBlocksOrOneWhenThereAreNoFullBlocks() {
    tracker.book(A, new long[] {1, 2, 3, 4, 5}, 2).close();
    assertThat(tracker.load(A).recentBlocks()).isCloseTo(2.0, within(1e-12));
    tracker.book(B, new long[] {1, 2}, 0).close();
    assertThat(tracker.load(B).recentBlocks()).isZero();
    tracker.book(B, new long[0], 0).close();
    assertThat(tracker.load(B).recentBlocks()).isCloseTo(1.0, within(1e-12));
  }

  @Test
  void snapshotsCarryUniqueTicketsAndIdleWorkersLoadNothing() {
    List<Worker> ws = List.of(Worker.of("a", Role.MIXED), Worker.of("new", Role.MIXED));
    LoadSnapshot s1 = tracker.snapshot(ws);
    LoadSnapshot s2 = tracker.snapshot(ws);
    assertThat(s2.ticket()).isEqualTo(s1.ticket() + 1);
    assertThat(s1.of(WorkerId.of("new"))).isEqualTo(WorkerLoad.IDLE);
  }
}
