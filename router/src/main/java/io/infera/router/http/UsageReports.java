package io.infera.router.http;

import io.infera.router.accuracy.CachedTokens;
import io.infera.router.accuracy.IndexAccuracy;
import io.infera.router.routing.RoutePlan;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import java.util.concurrent.Executor;

/**
 * Hands the cached tokens an answer reports, with the pick that predicted them, to {@link
 * IndexAccuracy}. A request without full blocks predicts nothing and is not compared. The answer's
 * usage is parsed off the event loop (a JSON answer may be up to {@link UsageTap#MAX_JSON_BYTES}):
 * the tap is handed over once the answer has ended and is not touched by the loop again.
 */
final class UsageReports {

  /** Compares nothing (tests, and proxies built without a runtime). */
  static final UsageReports NONE = new UsageReports(null, 1, Runnable::run);

  private final IndexAccuracy accuracy;
  private final int pageSize;
  private final Executor offLoop;

  /**
   * @param offLoop where taps are parsed and recorded: a worker pool, never an event loop
   */
  UsageReports(IndexAccuracy accuracy, int pageSize, Executor offLoop) {
    this.accuracy = accuracy;
    this.pageSize = pageSize;
    this.offLoop = offLoop;
  }

  /** A tap for {@code resp}, the answer of {@code attempt}, or null when it is not compared. */
  UsageTap tap(Attempt attempt, HttpClientResponse resp) {
    if (accuracy == null || attempt.plan().decision().requestBlocks() == 0) {
      return null;
    }
    return UsageTap.of(resp.statusCode(), resp.getHeader("content-type"));
  }

  /** A whole answer read by the router itself (vLLM's prefill half). */
  void reportWhole(RoutePlan plan, int status, String contentType, Buffer body) {
    if (accuracy == null || plan.decision().requestBlocks() == 0) {
      return;
    }
    UsageTap tap = UsageTap.of(status, contentType);
    if (tap != null) {
      tap.chunk(body);
      report(plan, tap);
    }
  }

  /** The answer {@code tap} watched has ended: its usage is parsed and recorded off the loop. */
  void report(RoutePlan plan, UsageTap tap) {
    if (accuracy == null) {
      return;
    }
    offLoop.execute(() -> record(plan, tap.result()));
  }

  private void record(RoutePlan plan, CachedTokens reported) {
    accuracy.record(
        plan.worker().info().pool(),
        plan.hitBlocks(),
        plan.decision().requestBlocks(),
        pageSize,
        reported);
  }
}
