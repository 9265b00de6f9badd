package io.infera.router.events.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.Role;
import io.infera.router.nats.EventSubjects;
import io.infera.router.policy.Booking;
import io.infera.router.policy.Decision;
import io.infera.router.policy.LoadTracker;
import io.infera.router.policy.Overlap;
import io.infera.router.policy.RoutingPolicy;
import io.infera.router.policy.Worker;
import io.infera.router.testing.NatsServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The herd (docs/routing.md, "Pitfalls", pitfall 3): two router replicas over one nats-server
 * receive bursts of identical new prompts at the same moment, without sharing, sharing in-flight
 * load, and sharing picks too. Kv-aware with no KV events, so every pick has 0 hits and is made by
 * load alone ({@code active_blocks + recent_blocks}). Prints every run's numbers.
 *
 * <p>With at least as many prompts per burst as workers, totals over a run stay even in every mode
 * (each replica balances its own picks, and two balanced halves sum to a balanced whole); with
 * fewer, on a fleet idle between bursts, every burst starts from the same idle fleet (the load
 * model charges only work in progress) and totals need not be even. The herd shows in how each
 * burst spreads and in how uneven the in-flight load is — most plainly when each replica gets one
 * prompt per burst, where two replicas alike pick the same worker every time unless they share.
 */
class SharedLoadHerdIT {

  private static final String SUBJECT = EventSubjects.loadSubject(EventSubjects.DEFAULT_PREFIX);
  private static final int WORKERS = 4;
  private static final int BLOCKS = 16;
  private static final List<Worker> CANDIDATES = new ArrayList<>();

  static {
    for (int i = 0; i < WORKERS; i++) {
      CANDIDATES.add(Worker.of("w" + i, Role.MIXED));
    }
  }

  @TempDir static Path dir;
  private static NatsServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = NatsServer.start(dir.resolve("nats"));
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  /**
   * @param split4x4 4 prompts to each replica, else each prompt to a random replica
   * @param jitterMicros each prompt arrives at a random offset in [0, jitter) after the burst
   *     starts
   * @param serviceMs how long a request stays in flight
   * @param gapMs time between bursts
   * @param atomicPicks whether a replica's concurrent picks are serialized (snapshot → select →
   *     book under one lock); otherwise they race as RequestRouter's do
   */
  record Scenario(
      String name,
      int bursts,
      int perBurst,
      boolean split4x4,
      int jitterMicros,
      int serviceMs,
      int gapMs,
      boolean atomicPicks) {}

  /**
   * @param totals requests per worker over the run
   * @param meanBurstMax per burst, the most requests one worker got (ideal perBurst / workers)
   * @param evenBursts bursts spread exactly evenly
   * @param peakInFlight most requests in flight on one worker at once
   * @param meanInFlightGap right after each pick, the most minus the fewest requests in flight on a
   *     worker, averaged: how uneven the load actually is (what matters once requests outlive a
   *     burst)
   */
  record Result(
      long[] totals,
      double meanBurstMax,
      int evenBursts,
      int peakInFlight,
      double meanInFlightGap) {
    double shareRatio() {
      long max = Arrays.stream(totals).max().orElseThrow();
      long min = Arrays.stream(totals).min().orElseThrow();
      return min == 0 ? Double.POSITIVE_INFINITY : (double) max / min;
    }

    @Override
    public String toString() {
      return String.format(
          "max/min share %.2f %s, per-burst max %.2f, even bursts %2d, in-flight gap %.2f,"
              + " peak %d",
          shareRatio(),
          Arrays.toString(totals),
          meanBurstMax,
          evenBursts,
          meanInFlightGap,
          peakInFlight);
    }
  }

  /** No sharing, sharing in-flight totals (the default), and also charging remote picks. */
  enum Mode {
    OFF,
    SHARED,
    SHARED_WITH_REMOTE_PICKS
  }

  @Test
  void identicalNewPromptsAtTheSameMomentSpreadAcrossWorkers() throws Exception {
    // The asserted herd: one prompt per replica within 20 ms, each in flight for 50 ms. Sharing
    // splits a pair whenever the second arrives later than one NATS hop after the first (a few
    // milliseconds even on a loaded machine); without it both replicas always pick alike.
    Scenario pair =
        new Scenario("1+1 within 20 ms, 50 ms requests", 50, 2, true, 20_000, 50, 80, false);
    List<Scenario> scenarios =
        List.of(
            pair,
            new Scenario("1+1 within 2 ms", 50, 2, true, 2000, 10, 30, false),
            new Scenario("4+4 at the same moment", 50, 8, true, 0, 10, 30, false),
            new Scenario("4+4 at the same moment, atomic picks", 50, 8, true, 0, 10, 30, true),
            new Scenario("8 split at random within 2 ms", 50, 8, false, 2000, 10, 30, false),
            new Scenario(
                "8 split at random within 2 ms, 100 ms requests",
                50,
                8,
                false,
                2000,
                100,
                30,
                false));
    List<String> report = new ArrayList<>();
    Map<Scenario, Map<Mode, Result>> results = new LinkedHashMap<>();
    for (Scenario sc : scenarios) {
      Map<Mode, Result> byMode = new EnumMap<>(Mode.class);
      for (Mode mode : Mode.values()) {
        Result r = run(sc, mode);
        assertThat(Arrays.stream(r.totals()).sum()).isEqualTo((long) sc.bursts() * sc.perBurst());
        byMode.put(mode, r);
      }
      results.put(sc, byMode);
      report.add(
          sc.name()
              + "\n    without sharing:        "
              + byMode.get(Mode.OFF)
              + "\n    sharing in-flight:      "
              + byMode.get(Mode.SHARED)
              + "\n    sharing + remote picks: "
              + byMode.get(Mode.SHARED_WITH_REMOTE_PICKS));
    }
    System.out.println("SharedLoadHerdIT (2 replicas, " + WORKERS + " workers, 0 hits):");
    report.forEach(r -> System.out.println("  " + r));
    for (Scenario sc : scenarios) {
      if (sc.perBurst() < WORKERS) {
        // Fewer prompts than workers, and the fleet idle between bursts: the load model charges
        // work in progress only, so every burst starts from the same idle fleet and its picks
        // take the first workers in order. Uneven totals are right there (an idle worker is as
        // good as any); what costs time to first token is two prompts of one burst on one
        // worker, asserted below.
        continue;
      }
      if (sc.jitterMicros() == 0 && !sc.atomicPicks()) {
        // Both replicas' four threads pick at the very same moment, each thread's pick racing its
        // replica's other three: no NATS hop can arrive in between, so sharing cannot act and the
        // totals are the scheduler's (ci22: 1.40 without sharing, 1.59 with it; other runs below
        // 1.5). Reported above; the atomic variant below is the one that shows the spread.
        continue;
      }
      assertThat(results.get(sc).get(Mode.SHARED).shareRatio())
          .as(sc.name())
          .isLessThanOrEqualTo(1.5);
    }
    // The herd itself: one prompt per replica, both replicas alike, so without sharing both pick
    // the same worker every time (only per-burst spread shows it).
    // (Not exactly every time: the load is time-based, and on a loaded machine a request of the
    // previous burst may still be in flight on one replica; measured 1.98-2.00.)
    assertThat(results.get(pair).get(Mode.OFF).meanBurstMax()).isGreaterThanOrEqualTo(1.9);
    // With sharing a pick is seen by the other replica within a NATS hop; only arrivals closer
    // than that still collide. (Within 2 ms, reported above, that depends on the machine's
    // latency: 1.00-1.28 idle, 1.68 during a parallel build.)
    assertThat(results.get(pair).get(Mode.SHARED).meanBurstMax()).isLessThanOrEqualTo(1.5);
  }

  private Result run(Scenario sc, Mode mode) throws Exception {
    LoadTracker[] trackers = {new LoadTracker(), new LoadTracker()};
    List<SharedLoad> shared = new ArrayList<>();
    if (mode != Mode.OFF) {
      SharedLoad.Settings settings =
          SharedLoad.Settings.defaults().withRemotePicks(mode == Mode.SHARED_WITH_REMOTE_PICKS);
      for (LoadTracker t : trackers) {
        shared.add(up(SharedLoad.connect(server.url(), SUBJECT, t, settings)));
      }
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> shared.stream().allMatch(s -> s.stats().replicas() == 1));
    }
    ScheduledExecutorService[] pools = {
      Executors.newScheduledThreadPool(sc.perBurst()),
      Executors.newScheduledThreadPool(sc.perBurst())
    };
    Random random = new Random(42); // the same arrivals with and without sharing
    AtomicIntegerArray inFlight = new AtomicIntegerArray(WORKERS);
    AtomicIntegerArray peak = new AtomicIntegerArray(WORKERS);
    Queue<Integer> gaps = new ConcurrentLinkedQueue<>();
    int[][] perBurst = new int[sc.bursts()][WORKERS];
    List<Future<?>> tasks = new ArrayList<>();
    try {
      for (int burst = 0; burst < sc.bursts(); burst++) {
        long[] prefix = random.longs(BLOCKS).toArray(); // new, identical for the whole burst
        int[] counts = perBurst[burst];
        for (int i = 0; i < sc.perBurst(); i++) {
          int replica = sc.split4x4() ? i % 2 : random.nextInt(2);
          long delayMicros = sc.jitterMicros() == 0 ? 0 : random.nextInt(sc.jitterMicros());
          LoadTracker tracker = trackers[replica];
          Callable<Void> request =
              () -> {
                Booking booking = pick(tracker, prefix, sc.atomicPicks());
                int w = Integer.parseInt(booking.worker().value().substring(1));
                synchronized (counts) {
                  counts[w]++;
                }
                int now = inFlight.incrementAndGet(w);
                peak.accumulateAndGet(w, now, Math::max);
                int hi = 0;
                int lo = Integer.MAX_VALUE;
                for (int x = 0; x < WORKERS; x++) {
                  hi = Math.max(hi, inFlight.get(x));
                  lo = Math.min(lo, inFlight.get(x));
                }
                gaps.add(hi - lo);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(sc.serviceMs()));
                inFlight.decrementAndGet(w);
                booking.close();
                return null;
              };
          tasks.add(pools[replica].schedule(request, delayMicros, TimeUnit.MICROSECONDS));
        }
        Thread.sleep(sc.gapMs());
      }
      for (Future<?> f : tasks) {
        f.get(30, TimeUnit.SECONDS);
      }
      if (mode != Mode.OFF) {
        // Every release reached the other replica: no remote load is left behind.
        await()
            .atMost(Duration.ofSeconds(5))
            .until(
                () ->
                    CANDIDATES.stream()
                        .allMatch(
                            w ->
                                trackers[0].load(w.id()).inFlight() == 0
                                    && trackers[1].load(w.id()).inFlight() == 0));
      }
    } finally {
      for (ExecutorService p : pools) {
        p.shutdownNow();
      }
      shared.forEach(SharedLoad::close);
    }
    long[] totals = new long[WORKERS];
    double sumMax = 0;
    int even = 0;
    for (int[] counts : perBurst) {
      int max = 0;
      int min = Integer.MAX_VALUE;
      for (int w = 0; w < WORKERS; w++) {
        totals[w] += counts[w];
        max = Math.max(max, counts[w]);
        min = Math.min(min, counts[w]);
      }
      sumMax += max;
      even += max == min ? 1 : 0;
    }
    int peakAll = 0;
    for (int w = 0; w < WORKERS; w++) {
      peakAll = Math.max(peakAll, peak.get(w));
    }
    double gap = gaps.stream().mapToInt(Integer::intValue).average().orElse(0);
    return new Result(totals, sumMax / sc.bursts(), even, peakAll, gap);
  }

  private static final RoutingPolicy POLICY = RoutingPolicy.of(PolicyConfig.defaults());

  /** What RequestRouter.pick does: snapshot, pure selection (0 hits), booking. */
  private static Booking pick(LoadTracker tracker, long[] blocks, boolean atomic) {
    if (atomic) {
      synchronized (tracker) {
        return pick(tracker, blocks, false);
      }
    }
    Decision d =
        POLICY.select(CANDIDATES, Overlap.none(blocks.length), tracker.snapshot(CANDIDATES));
    return tracker.book(d.winner(), blocks, blocks.length);
  }

  /** connect() returns at once; the subscription comes up in the background. */
  private static SharedLoad up(SharedLoad s) {
    await().atMost(Duration.ofSeconds(10)).until(s::connected);
    return s;
  }
}
