package io.infera.router.http;

import io.infera.router.accuracy.CachedTokens;
import io.infera.router.accuracy.IndexAccuracy;
import io.infera.router.routing.RoutePlan;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;

/**
 * Hands the cached tokens an answer reports, with the pick that predicted them, to {@link
 * IndexAccuracy}. A request without full blocks predicts nothing and is not compared.
 */
final class UsageReports {

  /** Compares nothing (tests, and proxies built without a runtime). */
  static final UsageReports NONE = new UsageReports(null, 1);

  private final IndexAccuracy accuracy;
  private final int pageSize;

  UsageReports(IndexAccuracy accuracy, int pageSize) {
    this.accuracy = accuracy;
    this.pageSize = pageSize;
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
      report(plan, tap.result());
    }
  }

  void report(RoutePlan plan, CachedTokens reported) {
    if (accuracy == null) {
      return;
    }
    accuracy.record(
        plan.worker().info().pool(),
        plan.hitBlocks(),
        plan.decision().requestBlocks(),
        pageSize,
        reported);
  }
}
