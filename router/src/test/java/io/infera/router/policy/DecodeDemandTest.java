package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.kv.WorkerId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Decode input demand's bookkeeping: sums, exactly-once release, workers leaving discovery. */
class DecodeDemandTest {

  private static final DemandTarget D0 = new DemandTarget(WorkerId.of("d0"), 0, 1);
  private static final DemandTarget D1R0 = new DemandTarget(WorkerId.of("d1"), 0, 2);
  private static final DemandTarget D1R1 = new DemandTarget(WorkerId.of("d1"), 1, 2);

  private final DecodeDemand demand = new DecodeDemand();

  @Test
  void reservationsAddUpPerTargetAndLeaveOnRelease() {
    DecodeDemand.Reservation a = demand.reserve(D0, 1000);
    DecodeDemand.Reservation b = demand.reserve(D0, 500);
    DecodeDemand.Reservation c = demand.reserve(D1R1, 70);
    assertThat(demand.load(D0)).isEqualTo(new DecodeDemand.Load(1500, 2));
    assertThat(demand.load(D1R1)).isEqualTo(new DecodeDemand.Load(70, 1));
    assertThat(demand.load(D1R0)).isEqualTo(DecodeDemand.Load.IDLE);
    assertThat(a.release()).isTrue();
    assertThat(demand.load(D0)).isEqualTo(new DecodeDemand.Load(500, 1));
    b.close();
    c.close();
    assertThat(demand.load(D0)).isEqualTo(DecodeDemand.Load.IDLE);
    assertThat(demand.load(D1R1)).isEqualTo(DecodeDemand.Load.IDLE);
  }

  @Test
  void onlyTheFirstReleaseCounts() {
    DecodeDemand.Reservation a = demand.reserve(D0, 1000);
    demand.reserve(D0, 10);
    assertThat(a.release()).isTrue();
    assertThat(a.release()).isFalse();
    a.close();
    assertThat(a.isOpen()).isFalse();
    assertThat(demand.load(D0)).isEqualTo(new DecodeDemand.Load(10, 1));
  }

  @Test
  void aLateReleaseAfterTheWorkerLeftNeverSubtractsFromItsNewEntry() {
    DecodeDemand.Reservation old = demand.reserve(D1R0, 4000);
    demand.reserve(D1R1, 100);
    assertThat(demand.forget(WorkerId.of("d1"))).containsExactlyInAnyOrder(D1R0, D1R1);
    assertThat(demand.load(D1R0)).isEqualTo(DecodeDemand.Load.IDLE);
    assertThat(demand.targets()).isEmpty();
    // The worker comes back (same id) and takes a new request.
    DecodeDemand.Reservation fresh = demand.reserve(D1R0, 300);
    assertThat(old.release()).isTrue(); // the late completion of the old request
    assertThat(demand.load(D1R0)).isEqualTo(new DecodeDemand.Load(300, 1));
    fresh.release();
    assertThat(demand.load(D1R0)).isEqualTo(DecodeDemand.Load.IDLE);
  }

  @Test
  void forgettingOneWorkerKeepsTheOthers() {
    demand.reserve(D0, 5);
    demand.reserve(D1R1, 7);
    demand.forget(WorkerId.of("d1"));
    assertThat(demand.targets()).containsExactly(D0);
    assertThat(demand.load(D0).tokens()).isEqualTo(5);
  }

  @Test
  void aNegativeReservationIsRefused() {
    assertThatThrownBy(() -> demand.reserve(D0, -1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void targetsAreValidatedAndLabelledByRankOnlyWhenRanked() {
    assertThat(D0.label()).isEqualTo("d0");
    assertThat(D1R1.label()).isEqualTo("d1/1");
    assertThatThrownBy(() -> new DemandTarget(WorkerId.of("x"), 2, 2))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new DemandTarget(WorkerId.of("x"), -1, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Many threads reserve, and every reservation is then released by several threads racing (the
   * response end, a client disconnect, a failure at once): each is released exactly once, and the
   * totals come back to zero.
   */
  @Test
  void racingReleasesReleaseEachReservationExactlyOnce() throws Exception {
    int threads = 8;
    int perThread = 2_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<DemandTarget> targets = List.of(D0, D1R0, D1R1);
      List<Future<List<DecodeDemand.Reservation>>> made = new ArrayList<>();
      CountDownLatch go = new CountDownLatch(1);
      for (int t = 0; t < threads; t++) {
        made.add(
            pool.submit(
                () -> {
                  go.await();
                  List<DecodeDemand.Reservation> out = new ArrayList<>();
                  ThreadLocalRandom r = ThreadLocalRandom.current();
                  for (int i = 0; i < perThread; i++) {
                    out.add(demand.reserve(targets.get(r.nextInt(3)), r.nextInt(1, 10_000)));
                  }
                  return out;
                }));
      }
      go.countDown();
      List<DecodeDemand.Reservation> all = new ArrayList<>();
      for (Future<List<DecodeDemand.Reservation>> f : made) {
        all.addAll(f.get(30, TimeUnit.SECONDS));
      }
      long reserved = targets.stream().mapToLong(t -> demand.load(t).tokens()).sum();
      assertThat(reserved)
          .isEqualTo(all.stream().mapToLong(DecodeDemand.Reservation::tokens).sum());
      assertThat(targets.stream().mapToInt(t -> demand.load(t).requests()).sum())
          .isEqualTo(threads * perThread);

      AtomicInteger released = new AtomicInteger();
      CountDownLatch race = new CountDownLatch(1);
      List<Future<?>> racers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        racers.add(
            pool.submit(
                () -> {
                  race.await();
                  for (DecodeDemand.Reservation r : all) {
                    if (r.release()) {
                      released.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      race.countDown();
      for (Future<?> f : racers) {
        f.get(30, TimeUnit.SECONDS);
      }
      assertThat(released.get()).isEqualTo(all.size());
      for (DemandTarget t : targets) {
        assertThat(demand.load(t)).isEqualTo(DecodeDemand.Load.IDLE);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** Reservations and releases interleaved with the worker leaving and coming back. */
  @Test
  void concurrentForgetNeverCorruptsALiveEntry() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        workers.add(
            pool.submit(
                () -> {
                  go.await();
                  for (int i = 0; i < 5_000; i++) {
                    demand.reserve(D0, 10).release();
                  }
                  return null;
                }));
      }
      workers.add(
          pool.submit(
              () -> {
                go.await();
                for (int i = 0; i < 2_000; i++) {
                  demand.forget(WorkerId.of("d0"));
                }
                return null;
              }));
      go.countDown();
      for (Future<?> f : workers) {
        f.get(30, TimeUnit.SECONDS);
      }
      // Whatever entry is current now only ever saw balanced reserve/release pairs.
      assertThat(demand.load(D0)).isEqualTo(DecodeDemand.Load.IDLE);
    } finally {
      pool.shutdownNow();
    }
  }
}
