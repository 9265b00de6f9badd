package io.infera.router.routing;

/**
 * Whether one worker may take a new request now and, if not, why. The single answer used by the
 * picker ({@link Fleet#routable}), {@code /ready}, {@code /v1/admin/status} and the 503 message, so
 * they can never disagree. Checks run in declaration order; the first that fails is the answer.
 */
public enum Eligibility {
  /** Routable. */
  ELIGIBLE("eligible"),
  /** This worker already failed the request being retried. */
  EXCLUDED("failed this request"),
  /** Discovery marks it terminating: it finishes in-flight work, gets no new requests. */
  DRAINING("draining"),
  /** The static backend's health probe fails. */
  UNHEALTHY("unhealthy"),
  /**
   * Its circuit breaker is open (or its half-open probe is taken). Such a worker is still used when
   * every otherwise eligible worker of the role is in this state ("route anyway").
   */
  BREAKER_OPEN("circuit breaker open");

  private final String reason;

  Eligibility(String reason) {
    this.reason = reason;
  }

  /** The words used in messages and status documents. */
  public String reason() {
    return reason;
  }

  /** The value in JSON documents ({@code eligible}, {@code draining}, ...). */
  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
