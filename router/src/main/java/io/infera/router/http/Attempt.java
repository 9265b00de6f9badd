package io.infera.router.http;

import io.infera.router.routing.RoutePlan;

/**
 * One try of a request on one worker. It owns the pick's booking and reports the worker's outcome
 * to its circuit breaker; every path that ends the try calls {@link #close}, and only the first
 * call releases the booking, so no ending can leak or double-release in-flight load. Touched only
 * from the request's event-loop context.
 */
final class Attempt {

  private final RoutePlan plan;

  Attempt(RoutePlan plan) {
    this.plan = plan;
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

  /**
   * The worker's first token arrived (the first body chunk of its answer, or its end when it has
   * none): the pick's prefill charge leaves the worker's load. Extra calls are ignored.
   */
  void firstToken() {
    plan.booking().firstToken();
  }

  /** Ends the try; only the first call releases the booking. */
  void close() {
    plan.booking().release();
  }

  /** True once {@link #close} has released the booking. */
  boolean closed() {
    return !plan.booking().isOpen();
  }
}
