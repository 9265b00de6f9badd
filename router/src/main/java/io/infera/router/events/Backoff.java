package io.infera.router.events;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * Capped exponential back-off with one jitter rule, for every retry loop of the event plane (the
 * transports, the relay's connection, publisher and snapshot writer): retry {@code n} (1 after the
 * first failure) waits {@code min(max, initial * 2^(n-1))}, spread uniformly over ±{@value
 * #JITTER_PERCENT} % so that replicas and relays restarted together do not retry in step, and never
 * less than 1 ms. Stateless and thread-safe: callers count their own failures.
 */
public final class Backoff {

  /** Half-width of the jitter band, in percent of the nominal pause. */
  public static final int JITTER_PERCENT = 20;

  private static final long MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final long initialNanos;
  private final long maxNanos;
  private final DoubleSupplier random;

  /** Back-off from {@code initial} up to {@code max}, jittered by {@link ThreadLocalRandom}. */
  public Backoff(Duration initial, Duration max) {
    this(initial, max, () -> ThreadLocalRandom.current().nextDouble());
  }

  /**
   * @param random uniform in {@code [0, 1)} (tests pass a seeded or fixed one)
   * @throws IllegalArgumentException unless {@code 0 < initial <= max}
   */
  public Backoff(Duration initial, Duration max, DoubleSupplier random) {
    Objects.requireNonNull(initial, "initial");
    Objects.requireNonNull(max, "max");
    if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          "back-off needs 0 < initial <= max, got " + initial + " and " + max);
    }
    this.initialNanos = initial.toNanos();
    this.maxNanos = max.toNanos();
    this.random = Objects.requireNonNull(random, "random");
  }

  /** The pause before retry {@code attempt} without jitter; attempts below 1 count as 1. */
  public long nominalNanos(int attempt) {
    int shift = Math.max(0, attempt - 1);
    if (shift >= 62 || initialNanos > (maxNanos >> shift)) {
      return maxNanos;
    }
    return Math.min(maxNanos, initialNanos << shift);
  }

  /** The jittered pause before retry {@code attempt}, in nanoseconds. */
  public long delayNanos(int attempt) {
    double spread = JITTER_PERCENT / 100.0 * (2 * random.getAsDouble() - 1);
    long d = (long) (nominalNanos(attempt) * (1 + spread));
    return Math.max(MIN_NANOS, d);
  }

  /** {@link #delayNanos} in milliseconds. */
  public long delayMillis(int attempt) {
    return TimeUnit.NANOSECONDS.toMillis(delayNanos(attempt));
  }

  /** {@link #delayNanos} as a duration. */
  public Duration delay(int attempt) {
    return Duration.ofNanos(delayNanos(attempt));
  }
}
