package io.infera.router.routing;

import java.util.function.LongSupplier;

/**
 * One worker's circuit breaker: {@code CLOSED} until {@code failures} consecutive faults, then
 * {@code OPEN} for a cooldown, then {@code HALF_OPEN} letting one probe request through — success
 * closes it, a fault reopens it with the cooldown doubled (up to a cap). Faults are connection
 * errors, timeouts and 5xx; a 4xx or 429 proves the worker alive and counts as success.
 * Thread-safe.
 */
public final class CircuitBreaker {

  /** Breaker states, exported as a gauge (0, 1, 2). */
  public enum State {
    CLOSED,
    OPEN,
    HALF_OPEN
  }

  private final int failures;
  private final long baseCooldownMs;
  private final long maxCooldownMs;
  private final LongSupplier clockMs;

  private State state = State.CLOSED;
  private int consecutive;
  private long cooldownMs;
  private long openedAt;
  private boolean probeInFlight;

  public CircuitBreaker(int failures, long cooldownMs, long maxCooldownMs, LongSupplier clockMs) {
    this.failures = failures;
    this.baseCooldownMs = cooldownMs;
    this.maxCooldownMs = Math.max(cooldownMs, maxCooldownMs);
    this.cooldownMs = cooldownMs;
    this.clockMs = clockMs;
  }

  /** The state now (an elapsed cooldown reads as HALF_OPEN). */
  public synchronized State state() {
    if (state == State.OPEN && clockMs.getAsLong() - openedAt >= cooldownMs) {
      state = State.HALF_OPEN;
      probeInFlight = false;
    }
    return state;
  }

  /** True when a request may go to this worker now (no side effect). */
  public synchronized boolean isAvailable() {
    State s = state();
    return s == State.CLOSED || (s == State.HALF_OPEN && !probeInFlight);
  }

  /**
   * Called when a request is actually sent: in HALF_OPEN it takes the single probe slot.
   *
   * @return false when the breaker refuses (open, or a probe is already in flight)
   */
  public synchronized boolean tryAcquire() {
    State s = state();
    if (s == State.CLOSED) {
      return true;
    }
    if (s == State.HALF_OPEN && !probeInFlight) {
      probeInFlight = true;
      return true;
    }
    return false;
  }

  /** The worker answered (any status below 500, including 4xx and 429). */
  public synchronized void onSuccess() {
    consecutive = 0;
    if (state != State.CLOSED) {
      state = State.CLOSED;
      cooldownMs = baseCooldownMs;
      probeInFlight = false;
    }
  }

  /** Connection error, timeout or 5xx. */
  public synchronized void onFault() {
    State s = state();
    if (s == State.HALF_OPEN) {
      cooldownMs = Math.min(maxCooldownMs, cooldownMs * 2);
      open();
      return;
    }
    if (s == State.CLOSED && ++consecutive >= failures) {
      open();
    }
  }

  private void open() {
    state = State.OPEN;
    openedAt = clockMs.getAsLong();
    probeInFlight = false;
    consecutive = 0;
  }

  /** Current cooldown, for status pages. */
  public synchronized long cooldownMs() {
    return cooldownMs;
  }
}
