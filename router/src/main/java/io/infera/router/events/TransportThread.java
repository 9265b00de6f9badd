package io.infera.router.events;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread of a transport: named, started once and stopped once, it repeats {@link #step()}
 * while running and, after a step fails, pauses as long as its {@link Backoff} says (the pause ends
 * early when the thread is stopped). Subclasses keep their sockets confined to this thread.
 *
 * <p>Crashes: an {@link Error} (an {@code OutOfMemoryError}, a {@code StackOverflowError}) or an
 * exception thrown outside {@link #step()} ends the loop. It is logged once at ERROR and counted
 * ({@link #crashes()}); {@link #afterLoop()} closes what the loop opened, and after a back-off the
 * loop starts again with {@link #beforeLoop()}. Until a step succeeds again, {@link
 * #threadProblem()} says why the thread delivers nothing, so readiness never hides a frozen thread.
 */
public abstract class TransportThread {

  private static final Logger log = LoggerFactory.getLogger(TransportThread.class);

  /** How {@link #stopThread} ended. */
  protected enum Stopped {
    /** The thread had already been stopped: nothing was done. */
    ALREADY,
    /** The thread was never started. */
    NEVER_STARTED,
    /** The thread ended (or is the caller itself, which will end after returning). */
    ENDED,
    /** The thread was still running when the join timed out. */
    STILL_RUNNING
  }

  private final String threadName;
  private final Backoff backoff;
  private final Object pause = new Object();
  private final AtomicLong crashes = new AtomicLong();
  private volatile boolean running;
  private volatile String crash;
  private volatile boolean ended;
  private Thread thread;
  private boolean stopped;

  /**
   * @param backoff the pause after the n-th failed step in a row
   */
  protected TransportThread(String threadName, Backoff backoff) {
    this.threadName = Objects.requireNonNull(threadName, "threadName");
    this.backoff = Objects.requireNonNull(backoff, "backoff");
  }

  /**
   * Starts the thread (a daemon named as given).
   *
   * @param what names the component in the exception
   * @throws IllegalStateException when already started or stopped
   */
  protected final synchronized void startThread(String what) {
    checkStartable(what);
    running = true;
    thread = new Thread(this::run, threadName);
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Throws unless {@link #startThread} would start the thread now (callers check before setting
   * what the thread uses).
   *
   * @throws IllegalStateException when already started or stopped
   */
  protected final synchronized void checkStartable(String what) {
    if (stopped) {
      throw new IllegalStateException(what + " is closed");
    }
    if (thread != null) {
      throw new IllegalStateException(what + " already started");
    }
  }

  /**
   * Ends the loop (a pause ends at once, a step in progress runs to its end) and waits up to {@code
   * join} for the thread. Any thread; only the first call does anything.
   */
  protected final Stopped stopThread(Duration join) {
    Thread t;
    synchronized (this) {
      if (stopped) {
        return Stopped.ALREADY;
      }
      stopped = true;
      running = false;
      t = thread;
    }
    synchronized (pause) {
      pause.notifyAll();
    }
    if (t == null) {
      return Stopped.NEVER_STARTED;
    }
    if (t == Thread.currentThread()) {
      return Stopped.ENDED;
    }
    try {
      t.join(join.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return t.isAlive() ? Stopped.STILL_RUNNING : Stopped.ENDED;
  }

  /** True from start until stopped (or until the loop ended by itself). */
  protected final boolean running() {
    return running;
  }

  /** The thread, or null before start. */
  protected final synchronized Thread thread() {
    return thread;
  }

  /** Times the loop ended by an unexpected error (each one logged at ERROR and restarted). */
  public final long crashes() {
    return crashes.get();
  }

  /**
   * Why the thread delivers nothing now although it was started and not stopped: it crashed and has
   * not completed a step since (it restarts after a back-off), or its loop ended by itself; null
   * when it runs (or was stopped, or never started). Any thread.
   */
  public final String threadProblem() {
    String c = crash;
    if (ended) {
      return "thread " + threadName + " ended" + (c == null ? "" : " after " + c);
    }
    if (c != null) {
      return "thread " + threadName + " crashed (" + c + "), restarting";
    }
    return null;
  }

  /**
   * Binds {@code infera.events.thread.crashes} (tag {@code transport}) counting {@code t}'s
   * crashes.
   */
  public static void bindCrashes(MeterRegistry registry, String transport, TransportThread t) {
    FunctionCounter.builder("infera.events.thread.crashes", t, TransportThread::crashes)
        .description("times an event transport's thread crashed (logged at ERROR, restarted)")
        .tag("transport", transport)
        .register(registry);
  }

  /**
   * The thread works again after a crash: {@link #threadProblem()} clears. Called by the base when
   * a step made progress; a subclass whose steps are long (a whole session) calls it once the new
   * session is under way. On the thread.
   */
  protected final void recovered() {
    if (crash != null) {
      crash = null;
      log.info("{} recovered after a crash crashes={}", threadName, crashes.get());
    }
  }

  /** Waits up to {@code nanos}, less when stopped meanwhile. On the thread. */
  protected final void pauseNanos(long nanos) {
    long deadline = System.nanoTime() + nanos;
    synchronized (pause) {
      long left;
      while (running && (left = deadline - System.nanoTime()) > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(pause, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** On the thread, before the first step (opens what the steps use). */
  protected void beforeLoop() {}

  /**
   * One unit of work, repeated while running.
   *
   * @return true when it made progress: the count of failures in a row starts over
   * @throws InterruptedException ends the loop when stopping, else the next step follows at once
   */
  protected abstract boolean step() throws Exception;

  /**
   * A step failed (not while stopping).
   *
   * @param failures failed steps in a row, this one included
   * @param pause how long the thread will wait before the next step
   * @return false to end the loop instead
   */
  protected abstract boolean failed(Exception e, int failures, Duration pause);

  /** On the thread, after the loop (also after an unexpected error): closes what it opened. */
  protected void afterLoop() {}

  /**
   * An unexpected error ended the loop (it is counted and restarted by the base); logged at ERROR
   * by default. Overrides count it in their own meters too and call this (or log at ERROR).
   */
  protected void crashed(Throwable e) {
    log.error("{} crashed, restarting it after a back-off crashes={}", threadName, crashes(), e);
  }

  private void run() {
    int crashesInRow = 0;
    try {
      while (running) {
        boolean crashedNow = false;
        boolean firstInRow = crash == null;
        try {
          beforeLoop();
          loop();
        } catch (Throwable e) {
          // Errors too: a frozen thread behind a ready router is worse than a restart.
          if (!running) {
            break;
          }
          crashedNow = true;
          crashes.incrementAndGet();
          crash = e.toString();
          crashed(e);
        } finally {
          closeLoop();
        }
        if (!crashedNow) {
          break;
        }
        crashesInRow = firstInRow ? 1 : crashesInRow + 1;
        pauseNanos(backoff.delayNanos(crashesInRow));
      }
    } finally {
      if (running) {
        // The loop gave up by itself (a failure handler said so): nothing will deliver.
        ended = true;
      }
      running = false;
    }
  }

  private void loop() {
    int failures = 0;
    while (running) {
      try {
        if (step()) {
          failures = 0;
          recovered();
        }
      } catch (InterruptedException e) {
        if (!running) {
          break;
        }
      } catch (Exception e) {
        if (!running) {
          break;
        }
        failures++;
        Duration wait = backoff.delay(failures);
        if (!failed(e, failures, wait)) {
          ended = true;
          break;
        }
        pauseNanos(wait.toNanos());
      }
    }
  }

  private void closeLoop() {
    try {
      afterLoop();
    } catch (Throwable e) {
      log.error("{} failed closing its resources", threadName, e);
    }
  }
}
