package io.infera.sim.bench;

import io.infera.sim.bench.report.RequestResult;
import io.infera.sim.workload.Session;
import io.infera.sim.workload.Workload;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The live load generator: replays a workload's sessions as timed requests on the wall clock. Each
 * session starts at its {@code startMs} and sends its next turn the turn's think time after the
 * previous answer (simulated times, scaled onto the wall clock by the {@link SimClock}); all
 * sessions run at once, each with one request in flight. A failed turn ends its session, as a
 * client would stop.
 *
 * <p>Threads: a timer (2 threads) fires the turns, a cached pool sends them (a request blocks its
 * thread until its answer ends); both are shut down when {@link #run} returns.
 */
final class LoadGenerator {

  /** Sends the current turn of a conversation and records its answer there. */
  @FunctionalInterface
  interface Sender {
    /** Called on a pool thread, one call per conversation at a time; may block. */
    RequestResult send(Conversation c);
  }

  /** Requests answered (or skipped after a failed turn) so far, of the total. */
  @FunctionalInterface
  interface Progress {
    void done(int done, int total);
  }

  /** Every request's result and how long the run took, in simulated ms (at least 1). */
  record Outcome(List<RequestResult> results, double durationMs) {}

  /** How long a run may take on the wall clock before it is abandoned. */
  static final long TIMEOUT_MINUTES = 30;

  private final SimClock clock;
  private final Progress progress;

  /**
   * @param progress told after every request, or null
   */
  LoadGenerator(SimClock clock, Progress progress) {
    this.clock = clock;
    this.progress = progress;
  }

  /** Sends every turn of {@code workload} through {@code sender} and waits for the last answer. */
  Outcome run(Workload workload, Sender sender) throws InterruptedException {
    return new Run(workload.sessions(), sender).await();
  }

  /** One run's threads and counters. */
  private final class Run {
    final List<Session> sessions;
    final Sender sender;
    final int total;
    final CountDownLatch finished;
    final ExecutorService pool = Executors.newCachedThreadPool();
    final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
    final List<RequestResult> results = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger done = new AtomicInteger();

    Run(List<Session> sessions, Sender sender) {
      this.sessions = sessions;
      this.sender = sender;
      int n = 0;
      for (Session s : sessions) {
        n += s.turns().size();
      }
      this.total = n;
      this.finished = new CountDownLatch(sessions.size());
    }

    Outcome await() throws InterruptedException {
      clock.start();
      for (Session s : sessions) {
        Conversation c = new Conversation(s);
        timer.schedule(() -> turn(c), clock.wallMicros(s.startMs()), TimeUnit.MICROSECONDS);
      }
      try {
        if (!finished.await(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
          throw new IllegalStateException(
              "benchmark run did not finish within " + TIMEOUT_MINUTES + " minutes");
        }
      } finally {
        timer.shutdownNow();
        pool.shutdownNow();
      }
      return new Outcome(List.copyOf(results), Math.max(1, clock.nowMs()));
    }

    /** On the timer: the turn is due. */
    private void turn(Conversation c) {
      c.ask();
      pool.execute(
          () -> {
            RequestResult r = sender.send(c);
            results.add(r);
            if (!r.error() && c.next()) {
              progress(1);
              timer.schedule(
                  () -> turn(c), clock.wallMicros(c.current().thinkMs()), TimeUnit.MICROSECONDS);
            } else {
              // A failed turn ends the conversation: its later turns count as done, unsent.
              progress(r.error() ? 1 + c.remaining() : 1);
              finished.countDown();
            }
          });
    }

    private void progress(int n) {
      int d = done.addAndGet(n);
      if (progress != null) {
        progress.done(d, total);
      }
    }
  }
}
