package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.Role;
import io.infera.router.kv.WorkerId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/** The tracker's sharing hook: what it announces, what it adds to a pick, and when it is silent. */
class LoadTrackerSharingTest {

  private static final WorkerId A = WorkerId.of("a");
  private static final WorkerId B = WorkerId.of("b");
  private static final List<Worker> WORKERS =
      List.of(Worker.of("a", Role.MIXED), Worker.of("b", Role.MIXED));

  /** Records changes; reports a fixed remote load. */
  private static final class Recorder implements LoadTracker.Sharing {
    final List<LoadTracker.Change> changes = new ArrayList<>();
    final Map<WorkerId, WorkerLoad> remote = new HashMap<>();

    @Override
    public WorkerLoad remote(WorkerId worker) {
      return remote.getOrDefault(worker, WorkerLoad.IDLE);
    }

    @Override
    public synchronized void changed(LoadTracker.Change change) {
      changes.add(change);
    }
  }

  @Test
  void withoutSharingNothingIsAnnouncedAndNoSeqAdvances() {
    LoadTracker t = new LoadTracker();
    t.book(A, new long[] {1, 2}, 2).close();
    assertThat(t.ownLoad()).isEqualTo(new LoadTracker.OwnLoad(0, List.of()));
  }

  @Test
  void bookingsAndReleasesAnnounceTheWorkersNewTotals() {
    LoadTracker t = new LoadTracker();
    Recorder r = new Recorder();
    t.share(r);
    Booking one = t.book(A, new long[] {1, 2, 3}, 3);
    Booking two = t.book(A, new long[] {1, 2}, 0);
    one.close();
    one.close();
    assertThat(r.changes)
        .containsExactly(
            new LoadTracker.Change(A, 1, 3, 1, true, 3.0),
            new LoadTracker.Change(A, 2, 3, 2, true, 0.0),
            new LoadTracker.Change(A, 3, 2, 1, false, 0.0));
    assertThat(t.ownLoad())
        .isEqualTo(
            new LoadTracker.OwnLoad(3, List.of(new LoadTracker.Change(A, 3, 2, 1, false, 0))));
    two.close();
    assertThat(t.ownLoad()).isEqualTo(new LoadTracker.OwnLoad(4, List.of()));
    t.unshare(r);
    t.book(B, new long[0], 0);
    assertThat(r.changes).hasSize(4);
  }

  @Test
  void aPickSeesRemoteInFlightLoadAddedToItsOwn() {
    LoadTracker t = new LoadTracker();
    Recorder r = new Recorder();
    r.remote.put(B, new WorkerLoad(10, 0, 2));
    t.share(r);
    t.book(B, new long[] {1}, 1);
    LoadSnapshot s = t.snapshot(WORKERS);
    assertThat(s.of(B).activeBlocks()).isEqualTo(11);
    assertThat(s.of(B).inFlight()).isEqualTo(3);
    assertThat(t.load(B).activeBlocks()).isEqualTo(11);
    assertThat(t.localLoad(B).activeBlocks()).isEqualTo(1);
    assertThat(s.of(A)).isEqualTo(WorkerLoad.IDLE);
  }

  @Test
  void remotePicksChargeAndDrainWithTimeLikeLocalOnes() {
    java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
    LoadTracker t =
        new LoadTracker(new io.infera.router.config.LoadModel(1_000, false), clock::get);
    t.book(A, new long[] {1, 2}, 2).close();
    t.remotePick(B, 5);
    // A released booking leaves no charge; another replica's pick is charged here.
    assertThat(t.load(A).recentBlocks()).isZero();
    assertThat(t.load(B).recentBlocks()).isEqualTo(5.0, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(t.load(B).inFlight()).isZero();
    clock.addAndGet(2_000_000L); // 2 ms at 1,000 blocks/s
    assertThat(t.load(B).recentBlocks()).isEqualTo(3.0, org.assertj.core.data.Offset.offset(1e-9));
    clock.addAndGet(3_000_000L);
    assertThat(t.load(B).recentBlocks()).isZero();
  }

  @Test
  void concurrentChangesAppliedInAnyOrderBySeqConvergeToTheTruth() throws Exception {
    // A receiver that keeps, per worker, the change with the highest seq (what SharedLoad does)
    // must end with exactly the tracker's totals however the threads interleave.
    LoadTracker t = new LoadTracker();
    Map<WorkerId, LoadTracker.Change> latest = new HashMap<>();
    t.share(
        new LoadTracker.Sharing() {
          @Override
          public WorkerLoad remote(WorkerId worker) {
            return WorkerLoad.IDLE;
          }

          @Override
          public void changed(LoadTracker.Change c) {
            synchronized (latest) {
              latest.merge(c.worker(), c, (old, neu) -> neu.seq() > old.seq() ? neu : old);
            }
          }
        });
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<?>> fs = new ArrayList<>();
    for (int th = 0; th < 4; th++) {
      fs.add(
          pool.submit(
              () -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                List<Booking> open = new ArrayList<>();
                for (int i = 0; i < 20_000; i++) {
                  if (open.size() < 5 && r.nextBoolean()) {
                    long[] blocks = {r.nextInt(20), r.nextInt(20)};
                    open.add(t.book(r.nextBoolean() ? A : B, blocks, 2));
                  } else if (!open.isEmpty()) {
                    open.remove(r.nextInt(open.size())).close();
                  }
                }
                open.forEach(Booking::close);
                // Leave one in flight per thread so the end state is not trivially zero.
                t.book(A, new long[] {100 + r.nextInt(1000)}, 1);
              }));
    }
    for (Future<?> f : fs) {
      f.get();
    }
    pool.shutdown();
    for (WorkerId w : List.of(A, B)) {
      WorkerLoad truth = t.localLoad(w);
      LoadTracker.Change seen = latest.get(w);
      assertThat(seen.activeBlocks()).as("%s", w).isEqualTo(truth.activeBlocks());
      assertThat(seen.inFlight()).as("%s", w).isEqualTo(truth.inFlight());
    }
    assertThat(t.localLoad(A).inFlight() + t.localLoad(B).inFlight()).isEqualTo(4);
  }
}
