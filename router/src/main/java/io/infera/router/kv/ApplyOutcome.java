package io.infera.router.kv;

/** What {@link PrefixIndex#apply} did with a batch, judged by its sequence number. */
public enum ApplyOutcome {
  /** In sequence (or the source's first batch, or a batch without a sequence): applied. */
  APPLIED,
  /** Sequence jumped ahead: applied, and the source is marked degraded until a resync. */
  GAP,
  /** Sequence went down: the engine restarted; the source's view was cleared, then applied. */
  RESTARTED,
  /** Sequence already applied: skipped. */
  DUPLICATE,
  /**
   * Sequence went down but the source's resets are rate-limited ({@link IndexLimits}): the batch
   * was dropped, the view kept and marked degraded.
   */
  RESET_REFUSED
}
