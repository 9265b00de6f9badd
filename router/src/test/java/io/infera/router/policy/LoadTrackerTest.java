package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infera.router.config.LoadModel;
import io.infera.router.config.Role;
import io.infera.router.kv.WorkerId;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoadTrackerTest {

  private static final WorkerId A = WorkerId.of("a");
  private static final WorkerId B = WorkerId.of("b");
  private static final long MS = 1_000_000L;

  private final AtomicLong clock = new AtomicLong(1_000 * MS);
  // 1,000 blocks/s: one block per ms, easy to follow.
  private final LoadTracker tracker = new LoadTracker(new LoadModel(1_000, true), clock::get);
  private final LoadTracker fixedRate = new LoadTracker(new LoadModel(1_000, false), clock::get);

  private void advanceMs(long ms) {
    clock.addAndGet(ms * MS);
  }

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
  void aPickIsChargedItsMissedBlocksOrOneWhenThereAreNoFullBlocks() {
    tracker.book(A, new long[] {1, 2, 3, 4, 5}, 2);
    assertThat(tracker.load(A).recentBlocks()).isCloseTo(2.0, within(1e-12));
    tracker.book(B, new long[] {1, 2}, 0);
    assertThat(tracker.load(B).recentBlocks()).isZero();
    tracker.book(B, new long[0], 0);
    assertThat(tracker.load(B).recentBlocks()).isCloseTo(1.0, within(1e-12));
  }

  @Test
  void anIdleWorkerKeepsNoChargeOfWorkItFinished() {
    // The simple case: the warm worker's first request is done, nothing else happens.
    Booking first = tracker.book(A, new long[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 10);
    advanceMs(4);
    first.firstToken();
    assertThat(tracker.load(A).recentBlocks()).isZero();
    first.close();
    assertThat(tracker.load(A)).isEqualTo(WorkerLoad.IDLE);
    // And without a single pick in between, a second request sees it idle too.
    advanceMs(60_000);
    assertThat(tracker.load(A)).isEqualTo(WorkerLoad.IDLE);
  }

  @Test
  void aChargeDrainsWithTimeAtTheWorkersRateWhenNoSignalComes() {
    fixedRate.book(A, new long[] {1}, 100);
    assertThat(fixedRate.load(A).recentBlocks()).isCloseTo(100, within(1e-9));
    advanceMs(30);
    assertThat(fixedRate.load(A).recentBlocks()).isCloseTo(70, within(1e-9));
    advanceMs(70);
    assertThat(fixedRate.load(A).recentBlocks()).isZero();
    // Still in flight (no first token, no release heard of), but no phantom prefill.
    assertThat(fixedRate.load(A).inFlight()).isEqualTo(1);
    assertThat(fixedRate.load(A).activeBlocks()).isEqualTo(1);
  }

  @Test
  void theQueueDrainsFromItsHeadAndAnIdleWorkerBanksNoCredit() {
    fixedRate.book(A, new long[] {9}, 0).close();
    advanceMs(500); // idle time before the next booking must not pre-pay anything
    fixedRate.book(A, new long[] {1}, 10);
    fixedRate.book(A, new long[] {2}, 20);
    advanceMs(15); // 15 blocks done: the first charge, and 5 of the second
    assertThat(fixedRate.load(A).recentBlocks()).isCloseTo(15, within(1e-9));
    advanceMs(15);
    assertThat(fixedRate.load(A).recentBlocks()).isZero();
  }

  @Test
  void aFirstTokenAlsoEndsTheChargesBookedBeforeIt() {
    Booking one = fixedRate.book(A, new long[] {1}, 40);
    Booking two = fixedRate.book(A, new long[] {2}, 40);
    Booking three = fixedRate.book(A, new long[] {3}, 40);
    assertThat(fixedRate.load(A).recentBlocks()).isCloseTo(120, within(1e-9));
    assertThat(two.firstToken()).isTrue();
    // First come, first served: one is done too; three is still waiting.
    assertThat(fixedRate.load(A).recentBlocks()).isCloseTo(40, within(1e-9));
    assertThat(one.firstToken()).isTrue(); // its own signal, late: nothing left to remove
    assertThat(fixedRate.load(A).recentBlocks()).isCloseTo(40, within(1e-9));
    assertThat(two.firstToken()).isFalse();
    three.close(); // released before its first token: its charge leaves
    assertThat(fixedRate.load(A).recentBlocks()).isZero();
    assertThat(three.firstToken()).isFalse();
    assertThat(fixedRate.load(A).inFlight()).isEqualTo(2);
  }

  @Test
  void aReleaseTakesOnlyItsOwnChargeOutOfTheMiddleOfTheQueue() {
    fixedRate.book(A, new long[] {1}, 10);
    Booking middle = fixedRate.book(A, new long[] {2}, 20);
    fixedRate.book(A, new long[] {3}, 30);
    middle.close();
    assertThat(fixedRate.load(A).recentBlocks()).isCloseTo(40, within(1e-9));
  }

  @Test
  void theRateIsLearnedFromTheWaitToTheFirstToken() {
    assertThat(tracker.prefillRate(A)).isEqualTo(1_000);
    // A worker at 250 blocks/s: 100 blocks take 400 ms.
    for (int i = 0; i < 40; i++) {
      Booking b = tracker.book(A, new long[] {i}, 100);
      advanceMs(400);
      b.firstToken();
      b.close();
    }
    assertThat(tracker.prefillRate(A)).isCloseTo(250, within(5.0));
    // The wait counts the work queued ahead: two of 100 blocks, the second's token after 800 ms.
    Booking x = tracker.book(B, new long[] {1}, 100);
    Booking y = tracker.book(B, new long[] {2}, 100);
    assertThat(tracker.prefillRate(B)).isEqualTo(1_000);
    for (int i = 0; i < 40; i++) {
      advanceMs(400);
      x.firstToken();
      advanceMs(400);
      y.firstToken();
      x.close();
      y.close();
      x = tracker.book(B, new long[] {1}, 100);
      y = tracker.book(B, new long[] {2}, 100);
    }
    assertThat(tracker.prefillRate(B)).isCloseTo(250, within(5.0));
  }

  @Test
  void theLearnedRateStaysWithinItsBounds() {
    for (int i = 0; i < 200; i++) {
      Booking b = tracker.book(A, new long[] {i}, 1);
      advanceMs(60_000); // absurdly slow
      b.firstToken();
      b.close();
    }
    assertThat(tracker.prefillRate(A)).isEqualTo(1_000 / LoadTracker.RATE_FLOOR_DIVISOR);
    for (int i = 0; i < 200; i++) {
      Booking b = tracker.book(B, new long[] {i}, 10_000);
      clock.addAndGet(1); // absurdly fast
      b.firstToken();
      b.close();
    }
    assertThat(tracker.prefillRate(B)).isEqualTo(1_000 * LoadTracker.RATE_CEILING_FACTOR);
  }

  @Test
  void withoutLearningTheStartingRateStays() {
    Booking b = fixedRate.book(A, new long[] {1}, 100);
    advanceMs(1_000);
    b.firstToken();
    assertThat(fixedRate.prefillRate(A)).isEqualTo(1_000);
  }

  @Test
  void aClockThatStepsBackDrainsNothingAndBreaksNothing() {
    fixedRate.book(A, new long[] {1}, 50);
    advanceMs(10);
    assertThat(fixedRate.load(A).recentBlocks()).isCloseTo(40, within(1e-9));
    advanceMs(-5);
    assertThat(fixedRate.load(A).recentBlocks()).isCloseTo(40, within(1e-9));
    Booking late = fixedRate.book(A, new long[] {2}, 10);
    late.firstToken(); // a wait <= 0 teaches nothing
    assertThat(fixedRate.load(A).recentBlocks()).isZero();
    assertThat(fixedRate.prefillRate(A)).isEqualTo(1_000);
  }

  @Test
  void remotePicksAreChargesThatDrainWithTime() {
    fixedRate.remotePick(A, 30);
    assertThat(fixedRate.load(A).recentBlocks()).isCloseTo(30, within(1e-9));
    assertThat(fixedRate.load(A).inFlight()).isZero();
    advanceMs(30);
    assertThat(fixedRate.load(A).recentBlocks()).isZero();
    // A later local request's first token also ends it (it was queued ahead).
    fixedRate.remotePick(A, 30);
    Booking b = fixedRate.book(A, new long[] {1}, 5);
    b.firstToken();
    assertThat(fixedRate.load(A).recentBlocks()).isZero();
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
