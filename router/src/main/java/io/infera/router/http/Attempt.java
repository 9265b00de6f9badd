package io.infera.router.http;

import io.infera.router.routing.RoutePlan;

/**
 * One try of a request on one worker. It owns the pick's booking (and, for a decode half, its input
 * demand reservation) and reports the worker's outcome to its circuit breaker; every path that ends
 * the try calls {@link #close}, and only the first call releases the booking, so no ending can leak
 * or double-release in-flight load. Touched only from the request's event-loop context.
 */
final class Attempt {

  private final RoutePlan plan;
  private long sentNanos = -1;

  /**
   * Whether the overlap-weight tuner may learn from this try's time to first token: false for a
   * multimodal request (its overlap term is image affinity), set by the handler that makes the try.
   */
  private boolean textOnly = true;

  Attempt(RoutePlan plan) {
    this.plan = plan;
  }

  /** Marks the request as one the overlap-weight tuner must not learn from (not text-only). */
  void notTextOnly() {
    textOnly = false;
  }

  RoutePlan plan() {
    return plan;
  }

  /** The worker's id, for headers, logs and metrics. */
  String worker() {
    return plan.worker().info().id().value();
  }

  /** The request is being sent: in a half-open breaker this takes the probe slot. */
  void sent() {
    plan.worker().breaker().tryAcquire();
    sentNanos = System.nanoTime();
  }

  /**
   * The worker's first token reached the router: the first body chunk of a streamed answer (for the
   * prefill half of a pair, its answer). The pick's prefill charge leaves the worker's load and the
   * tuner hears the time from sending. Only the first call counts (the booking and the probe each
   * ignore extra calls).
   */
  void firstToken() {
    plan.booking().firstToken();
    // The overlap-weight tuner's feedback: the time from sending to the first token.
    tunerFirstToken(System.nanoTime());
  }

  void tunerFirstToken(long nowNanos) {
    if (plan.probe() != null && sentNanos >= 0) {
      plan.probe().firstToken((nowNanos - sentNanos) / 1e6, textOnly);
    }
  }

  /**
   * The worker answered with {@code status}: 5xx is a fault, anything else (4xx and 429 too) proves
   * it alive.
   */
  void answered(int status) {
    if (status >= 500) {
      plan.worker().breaker().onFault();
    } else {
      plan.worker().breaker().onSuccess();
    }
  }

  /** The worker failed: connection error, timeout, or a stream that broke halfway. */
  void failed() {
    plan.worker().breaker().onFault();
  }

  /** Whether {@link #sent} was called: the request went (or is going) to the worker. */
  boolean wasSent() {
    return sentNanos >= 0;
  }

  /**
   * Ends the try; only the first call releases the booking and the decode input-demand reservation.
   */
  void close() {
    plan.release();
    if (plan.probe() != null) {
      plan.probe().abandon(); // no-op once the first token was reported
    }
  }

  /** True once {@link #close} has released the booking. */
  boolean closed() {
    return !plan.booking().isOpen();
  }
}
