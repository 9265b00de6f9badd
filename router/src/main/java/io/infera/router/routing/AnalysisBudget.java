package io.infera.router.routing;

import io.infera.router.config.RouterConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The global analysis budget: request bytes in analysis (or waiting for it) across all requests,
 * analysis threads ({@code limits.analysisConcurrency}) and a bounded queue in front of them. A
 * request that does not fit is refused at once ({@link RoutingFailure.AnalysisBudgetFull}, 429)
 * instead of piling up; one request alone always fits, so 429 means other requests hold the budget.
 * A queued request whose client has left is dropped before it is parsed or tokenized. Thread-safe.
 */
public final class AnalysisBudget implements MeterBinder, AutoCloseable {

  private final long maxBytes;
  private final int queue;
  private final ThreadPoolExecutor threads;
  private final AtomicLong inFlightBytes = new AtomicLong();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final CompositeMeterRegistry meters = new CompositeMeterRegistry();
  private final Counter rejectedBytes;
  private final Counter rejectedQueue;
  private final Counter abandoned;

  public AnalysisBudget(RouterConfig.Analysis limits) {
    this(limits.analysisInFlightBytes(), limits.analysisConcurrency(), limits.analysisQueue());
  }

  /**
   * @param maxBytes request bytes in analysis at once, all requests together
   * @param concurrency analysis threads
   * @param queue requests waiting for a thread (0: none wait)
   */
  public AnalysisBudget(long maxBytes, int concurrency, int queue) {
    this.maxBytes = maxBytes;
    this.queue = queue;
    BlockingQueue<Runnable> q =
        queue == 0 ? new SynchronousQueue<>() : new ArrayBlockingQueue<>(queue);
    AtomicInteger n = new AtomicInteger();
    this.threads =
        new ThreadPoolExecutor(
            concurrency,
            concurrency,
            60,
            TimeUnit.SECONDS,
            q,
            r -> {
              Thread t = new Thread(r, "infera-analysis-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            },
            new ThreadPoolExecutor.AbortPolicy());
    this.threads.allowCoreThreadTimeOut(true);
    rejectedBytes = rejected("in_flight_bytes");
    rejectedQueue = rejected("queue");
    abandoned =
        Counter.builder("infera.analysis.abandoned")
            .description("requests whose client left before their analysis ran; not tokenized")
            .register(meters);
    Gauge.builder("infera.analysis.inflight.bytes", inFlightBytes, AtomicLong::get)
        .description("request bytes being analysed or waiting for it")
        .baseUnit("bytes")
        .register(meters);
    Gauge.builder("infera.analysis.inflight", inFlight, AtomicInteger::get)
        .description("requests being analysed or waiting for it")
        .register(meters);
  }

  private Counter rejected(String budget) {
    return Counter.builder("infera.analysis.rejected")
        .description("requests refused with 429 because the analysis budget was full")
        .tag("budget", budget)
        .register(meters);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    meters.add(registry);
  }

  /**
   * Runs {@code task} on an analysis thread when the request fits the budget.
   *
   * @param bytes the request body's size, held until the task ends
   * @param clientGone read when the task is about to run: true skips the task (the future then
   *     completes with {@code ifGone}) and is counted as abandoned
   * @return the task's result, or a future failed with {@link Refused} (never run) at once
   */
  public <T> CompletableFuture<T> submit(
      long bytes, BooleanSupplier clientGone, Supplier<T> task, T ifGone) {
    if (!reserve(bytes)) {
      rejectedBytes.increment();
      return CompletableFuture.failedFuture(
          new Refused(
              new RoutingFailure.AnalysisBudgetFull(
                  "the router is analysing too many request bytes at once (limits"
                      + ".analysisInFlightBytes="
                      + maxBytes
                      + "); retry later")));
    }
    inFlight.incrementAndGet();
    CompletableFuture<T> out = new CompletableFuture<>();
    try {
      threads.execute(
          () -> {
            // released before completing: whoever sees the result sees the budget free again
            T result = ifGone;
            Throwable failed = null;
            try {
              if (clientGone.getAsBoolean()) {
                abandoned.increment();
              } else {
                result = task.get();
              }
            } catch (Throwable e) {
              failed = e;
            } finally {
              release(bytes);
            }
            if (failed != null) {
              out.completeExceptionally(failed);
            } else {
              out.complete(result);
            }
          });
    } catch (RejectedExecutionException e) {
      release(bytes);
      rejectedQueue.increment();
      return CompletableFuture.failedFuture(
          new Refused(
              new RoutingFailure.AnalysisBudgetFull(
                  "the router's analysis queue is full (limits.analysisConcurrency="
                      + threads.getMaximumPoolSize()
                      + ", limits.analysisQueue="
                      + queue
                      + "); retry later")));
    }
    return out;
  }

  /** Takes {@code bytes} when they fit, or when nothing else is in flight. */
  private boolean reserve(long bytes) {
    while (true) {
      long cur = inFlightBytes.get();
      if (cur != 0 && cur + bytes > maxBytes) {
        return false;
      }
      if (inFlightBytes.compareAndSet(cur, cur + bytes)) {
        return true;
      }
    }
  }

  private void release(long bytes) {
    inFlightBytes.addAndGet(-bytes);
    inFlight.decrementAndGet();
  }

  /** Bytes held now (tests, status). */
  public long inFlightBytes() {
    return inFlightBytes.get();
  }

  /** Requests held now (tests, status). */
  public int inFlight() {
    return inFlight.get();
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }

  /** A request the budget refused; {@link #failure()} is the 429. */
  public static final class Refused extends RuntimeException {
    private final RoutingFailure.AnalysisBudgetFull failure;

    Refused(RoutingFailure.AnalysisBudgetFull failure) {
      super(failure.message(), null, false, false);
      this.failure = failure;
    }

    public RoutingFailure.AnalysisBudgetFull failure() {
      return failure;
    }
  }
}
