package io.infera.router.config;

/**
 * {@code policy.tuner.*}: the bounds and pace of the overlap-weight tuner (docs/routing.md,
 * "Self-tuning overlap weight").
 *
 * @param minWeight lowest weight the tuner may use, > 0
 * @param maxWeight highest weight, >= minWeight
 * @param initialWeight where each pool starts, within the bounds
 * @param epochRequests requests routed at one probe weight before the tuner switches to the other;
 *     a comparison round is four epochs
 */
public record TunerConfig(
    double minWeight, double maxWeight, double initialWeight, int epochRequests) {

  public static final double DEFAULT_MIN_WEIGHT = 0.25;
  public static final double DEFAULT_MAX_WEIGHT = 32.0;
  public static final double DEFAULT_INITIAL_WEIGHT = 8.0;
  public static final int DEFAULT_EPOCH_REQUESTS = 16;

  /** Fewest and most requests per epoch. */
  public static final int MIN_EPOCH_REQUESTS = 4;

  public static final int MAX_EPOCH_REQUESTS = 100_000;

  /** Highest weight bound accepted. */
  public static final double MAX_BOUND = 1_000_000.0;

  public TunerConfig {
    if (!(minWeight > 0) || minWeight > MAX_BOUND) {
      throw new IllegalArgumentException(
          "tuner.minWeight must be > 0 and <= " + MAX_BOUND + ", got " + minWeight);
    }
    if (!(maxWeight >= minWeight) || maxWeight > MAX_BOUND) {
      throw new IllegalArgumentException(
          "tuner.maxWeight must be >= tuner.minWeight ("
              + minWeight
              + ") and <= "
              + MAX_BOUND
              + ", got "
              + maxWeight);
    }
    if (!(initialWeight >= minWeight && initialWeight <= maxWeight)) {
      throw new IllegalArgumentException(
          "tuner.initialWeight must be within [tuner.minWeight, tuner.maxWeight] = ["
              + minWeight
              + ", "
              + maxWeight
              + "], got "
              + initialWeight);
    }
    if (epochRequests < MIN_EPOCH_REQUESTS || epochRequests > MAX_EPOCH_REQUESTS) {
      throw new IllegalArgumentException(
          "tuner.epochRequests must be in ["
              + MIN_EPOCH_REQUESTS
              + ", "
              + MAX_EPOCH_REQUESTS
              + "], got "
              + epochRequests);
    }
  }

  public static TunerConfig defaults() {
    return new TunerConfig(
        DEFAULT_MIN_WEIGHT, DEFAULT_MAX_WEIGHT, DEFAULT_INITIAL_WEIGHT, DEFAULT_EPOCH_REQUESTS);
  }
}
