package io.infera.router.policy;

/**
 * The one place the overlap weight of a request is composed (docs/routing.md, "Self-tuning overlap
 * weight"): the pool's weight, tuned or fixed, times the request's retention factor. Later terms
 * (image affinity for multimodal requests) replace the text overlap term instead of changing this
 * product.
 */
public final class OverlapWeight {

  /** The retention factor of a request without hints. */
  public static final double NO_HINT = 1.0;

  private OverlapWeight() {}

  /**
   * @param poolWeight the weight of the worker's pool and role (tuned or fixed), finite and >= 0
   * @param retention the request's retention factor (1.0 without hints), finite and >= 0
   * @return the weight that multiplies the worker's missed blocks in the cost
   */
  public static double effective(double poolWeight, double retention) {
    return poolWeight * retention;
  }
}
