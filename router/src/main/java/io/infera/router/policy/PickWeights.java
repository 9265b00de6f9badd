package io.infera.router.policy;

/**
 * The pool weights of one pick's candidates (aligned with the candidate list) and the request's
 * retention factor; {@link OverlapWeight#effective} combines them.
 *
 * @param pool one weight per candidate, in candidate order, each finite and >= 0
 * @param retention the request's retention factor
 */
public record PickWeights(double[] pool, double retention) {

  /** The weight of candidate {@code i}, composed. */
  public double effective(int i) {
    return OverlapWeight.effective(pool[i], retention);
  }
}
