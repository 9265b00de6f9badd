package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.LoadModel;
import io.infera.router.kv.WorkerId;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * Whatever the order of bookings, first tokens, releases, remote picks and clock steps (the clock
 * may step back), a worker's booked prefill is never negative, never more than the charges still
 * open, never grows without a booking, the learned rate stays within its bounds, and once every
 * request ended and the remote charges drained, every worker is exactly idle.
 */
class LoadTrackerProperties {

  private static final List<WorkerId> WORKERS =
      List.of(WorkerId.of("w0"), WorkerId.of("w1"), WorkerId.of("w2"));

  private record Open(Booking booking, double charge) {}

  @Property(tries = 300)
  void chargesStayBoundedAndDrainToIdle(
      @ForAll @LongRange(min = 0, max = 1L << 40) long seed, @ForAll boolean learn) {
    Random r = new Random(seed);
    AtomicLong clock = new AtomicLong(r.nextLong() >>> 2);
    double start = 1 + r.nextInt(10_000);
    LoadTracker t = new LoadTracker(new LoadModel(start, learn), clock::get);
    List<Open> open = new ArrayList<>();
    double[] remote = new double[WORKERS.size()];
    for (int op = 0; op < 400; op++) {
      WorkerId w = WORKERS.get(r.nextInt(WORKERS.size()));
      double before = t.localLoad(w).recentBlocks();
      int kind = r.nextInt(10);
      switch (kind) {
        case 0, 1, 2 -> {
          long[] blocks = new long[r.nextInt(6)];
          for (int i = 0; i < blocks.length; i++) {
            blocks[i] = r.nextInt(30);
          }
          int missed = r.nextInt(3) == 0 ? -r.nextInt(5) : r.nextInt(500);
          Booking b = t.book(w, blocks, missed);
          open.add(new Open(b, blocks.length == 0 ? 1.0 : Math.max(0, missed)));
        }
        case 3, 4 -> {
          if (!open.isEmpty()) {
            open.get(r.nextInt(open.size())).booking().firstToken();
          }
        }
        case 5 -> {
          if (!open.isEmpty()) {
            open.remove(r.nextInt(open.size())).booking().close();
          }
        }
        case 6 -> {
          double c = r.nextDouble() * 100;
          t.remotePick(w, c);
          remote[WORKERS.indexOf(w)] += c;
        }
        case 7 -> clock.addAndGet(-r.nextInt(5_000_000)); // a clock that steps back
        default -> clock.addAndGet(r.nextInt(50_000_000));
      }
      if (kind >= 3 && kind != 6) {
        // Nothing booked: the worker's charge can only have shrunk.
        assertThat(t.localLoad(w).recentBlocks()).isLessThanOrEqualTo(before + 1e-6);
      }
      for (int i = 0; i < WORKERS.size(); i++) {
        WorkerId x = WORKERS.get(i);
        WorkerLoad l = t.localLoad(x);
        double bound = remote[i];
        for (Open o : open) {
          if (o.booking().worker().equals(x)) {
            bound += o.charge();
          }
        }
        assertThat(l.recentBlocks()).isBetween(0.0, bound + 1e-6);
        assertThat(l.inFlight()).isNotNegative();
        assertThat(l.activeBlocks()).isNotNegative();
        assertThat(t.prefillRate(x))
            .isBetween(
                start / LoadTracker.RATE_FLOOR_DIVISOR, start * LoadTracker.RATE_CEILING_FACTOR);
      }
    }
    open.forEach(o -> o.booking().close());
    // The remote charges drain with time: 10^7 s is enough at the slowest rate allowed.
    clock.addAndGet(10_000_000_000_000_000L);
    for (WorkerId w : WORKERS) {
      assertThat(t.localLoad(w)).isEqualTo(WorkerLoad.IDLE);
    }
  }
}
