package io.infera.router.routing;

import io.infera.router.policy.Booking;
import io.infera.router.policy.Decision;

/**
 * A booked pick: where one attempt of a request goes.
 *
 * @param dpRank the worker's data-parallel rank that caches the most (0 when single-rank)
 * @param booking released exactly once when the attempt ends, whichever way
 */
public record RoutePlan(Fleet.Member worker, Decision decision, Booking booking, int dpRank) {

  public int hitBlocks() {
    return decision.winnerScore().hits();
  }
}
