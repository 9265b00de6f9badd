package io.infera.router.routing;

import io.infera.router.policy.Booking;
import io.infera.router.policy.Decision;
import io.infera.router.policy.DemandPick;
import io.infera.router.policy.tuner.Probe;

/**
 * A booked pick: where one attempt of a request goes.
 *
 * @param dpRank the worker's data-parallel rank that caches the most (0 when single-rank)
 * @param booking released exactly once when the attempt ends, whichever way
 * @param probe the overlap-weight tuner's pending report for this pick (its first token, or its end
 *     without one); null when the weight is fixed, the policy ignores overlap, or for an explain
 * @param demand the decode input-demand decision and its reservation, released with the booking;
 *     null unless this is a decode pick with {@code policy.decodeInputDemand} shadow or on
 * @param session what session affinity said about this pick ({@code none} without a session)
 */
public record RoutePlan(
    Fleet.Member worker,
    Decision decision,
    Booking booking,
    int dpRank,
    Probe probe,
    DemandPick demand,
    SessionAffinity.Verdict session) {

  public RoutePlan {
    session = session == null ? SessionAffinity.UNBOUND : session;
  }

  /** A plan without decode input demand or session affinity. */
  public RoutePlan(
      Fleet.Member worker, Decision decision, Booking booking, int dpRank, Probe probe) {
    this(worker, decision, booking, dpRank, probe, null, null);
  }

  /**
   * Releases the booking and the demand reservation; returns true only for the call that released
   * the booking. Every terminal path of the attempt calls it; extra calls are ignored.
   */
  public boolean release() {
    if (demand != null) {
      demand.reservation().release();
    }
    return booking.release();
  }

  public int hitBlocks() {
    return decision.winnerScore().hits();
  }
}
