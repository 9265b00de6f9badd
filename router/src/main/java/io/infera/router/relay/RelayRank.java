package io.infera.router.relay;

/**
 * One rank's subject as the relay's publisher knows it: the watermark, whether a resync is due (and
 * how far it got), and when the next periodic snapshot is. Publishing thread only.
 */
final class RelayRank {

  final int rank;
  final String subject;

  /** Stream sequence of the subject's last message the view includes: the watermark. */
  long lastStreamSeq;

  boolean resyncPending;
  String resyncReason;
  long resyncSnapshotId;
  long resyncWatermark;
  long resyncEpisode;

  long eventsSinceSnapshot;
  boolean changed;
  long lastSnapshotNanos;

  RelayRank(int rank, String subject, long nowNanos) {
    this.rank = rank;
    this.subject = subject;
    this.lastSnapshotNanos = nowNanos;
  }

  /**
   * Whether a periodic snapshot is due: the view changed, no resync is waiting (it takes its own),
   * the minimum interval passed, and enough events or time accumulated.
   */
  boolean snapshotDue(long nowNanos, RelayOptions o) {
    if (resyncPending || !changed) {
      return false;
    }
    long since = nowNanos - lastSnapshotNanos;
    if (since < o.snapshotMinInterval().toNanos()) {
      return false;
    }
    return eventsSinceSnapshot >= o.snapshotEveryEvents() || since >= o.snapshotEvery().toNanos();
  }

  /** A snapshot of the view as it is now was submitted. */
  void snapshotTaken(long nowNanos) {
    changed = false;
    eventsSinceSnapshot = 0;
    lastSnapshotNanos = nowNanos;
  }

  /**
   * The view holds batches that are not in the stream at their place: a resync is due. An overflow
   * reason wins over an earlier one (it explains more).
   */
  void markResync(String reason, String overflowReason) {
    if (!resyncPending || overflowReason.equals(reason)) {
      resyncReason = reason;
    }
    resyncPending = true;
    // Whatever snapshot was taken for it no longer has everything.
    resyncSnapshotId = 0;
  }
}
