package io.infera.router.events;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread of a transport: named, started once and stopped once, it repeats {@link #step()}
 * while running and, after a step fails, pauses as long as its {@link Backoff} says (the pause ends
 * early when the thread is stopped). Subclasses keep their sockets confined to this thread.
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
  private volatile boolean running;
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

  /** An unexpected error ended the loop; logged by default. */
  protected void crashed(RuntimeException e) {
    log.error("{} failed", threadName, e);
  }

  private void run() {
    try {
      beforeLoop();
      int failures = 0;
      while (running) {
        try {
          if (step()) {
            failures = 0;
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
            break;
          }
          pauseNanos(wait.toNanos());
        }
      }
    } catch (RuntimeException e) {
      crashed(e);
    } finally {
      running = false;
      afterLoop();
    }
  }
}
