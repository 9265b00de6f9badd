package io.infera.router.parity;

import java.util.Optional;

/**
 * When to probe one worker: the pure decision behind the prober's timer. A worker is probed when
 * first seen, when it restarted (its KV-event view was reset, e.g. its sequence went down, or its
 * URL changed: a new pod under the same name), every {@code intervalMs}, and again {@link
 * #RETRY_MS} after a failed probe; never while a probe of it is in flight, and not twice within
 * {@link #MIN_GAP_MS} (a flapping engine cannot turn probes into load).
 */
public final class ParitySchedule {

  /** Why a probe starts (the {@code trigger} label of the probe counter). */
  public enum Trigger {
    DISCOVERY,
    RESTART,
    PERIODIC,
    RETRY;

    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** Shortest time between two probes of one worker, whatever triggers them. */
  public static final long MIN_GAP_MS = 5_000;

  /** Time after a failed probe before the next (capped by the interval). */
  public static final long RETRY_MS = 30_000;

  /**
   * What the schedule remembers of one worker.
   *
   * @param lastStartMs when the last probe started (monotonic ms), or {@code Long.MIN_VALUE}
   * @param resets the worker's view resets when it started
   * @param url the worker's URL when it started
   * @param failed whether it ended in {@link ParityStatus#FAILED}
   * @param inFlight whether it has not ended yet
   */
  public record State(long lastStartMs, long resets, String url, boolean failed, boolean inFlight) {

    /** A worker never probed. */
    public static final State NEW = new State(Long.MIN_VALUE, 0, null, false, false);

    public State started(long nowMs, long resetsNow, String urlNow) {
      return new State(nowMs, resetsNow, urlNow, false, true);
    }

    public State ended(boolean probeFailed) {
      return new State(lastStartMs, resets, url, probeFailed, false);
    }
  }

  private final long intervalMs;

  public ParitySchedule(long intervalMs) {
    if (intervalMs < 1) {
      throw new IllegalArgumentException("intervalMs must be >= 1");
    }
    this.intervalMs = intervalMs;
  }

  /**
   * Whether to probe now, and why.
   *
   * @param resetsNow the worker's view resets so far ({@code PrefixIndex#resets})
   * @param urlNow the worker's URL now
   */
  public Optional<Trigger> decide(State s, long nowMs, long resetsNow, String urlNow) {
    if (s.inFlight()) {
      return Optional.empty();
    }
    if (s.lastStartMs() == Long.MIN_VALUE) {
      return Optional.of(Trigger.DISCOVERY);
    }
    long since = nowMs - s.lastStartMs();
    if (since < MIN_GAP_MS) {
      return Optional.empty();
    }
    if (resetsNow != s.resets() || !urlNow.equals(s.url())) {
      return Optional.of(Trigger.RESTART);
    }
    if (since >= intervalMs) {
      return Optional.of(Trigger.PERIODIC);
    }
    if (s.failed() && since >= Math.min(RETRY_MS, intervalMs)) {
      return Optional.of(Trigger.RETRY);
    }
    return Optional.empty();
  }
}
