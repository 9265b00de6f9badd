package io.infera.router.events.nats;

import io.infera.router.events.TransportStatus;
import io.infera.router.kv.WorkerId;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One source (worker, rank) of the {@code nats} transport as the admin status shows it.
 *
 * @param lastEngineSeq the engine sequence of the last batch applied or seeded, -1 when none
 * @param lastStreamSeq the stream sequence of the last message applied (or the seeded snapshot's
 *     watermark), 0 when none
 * @param messages messages delivered for this source
 * @param coveredSkipped messages skipped because a seeded snapshot already included them
 * @param lagMessages stream messages not yet processed (the same for every source)
 * @param lagSeconds from the stream timestamp of the source's last message to its delivery
 * @param degradedReason {@code events_lost}, {@code engine_gap} or {@code resync_failed}; null when
 *     healthy
 * @param snapshotStreamSeq the watermark of the seeded snapshot, -1 when none was seeded
 * @param snapshotAgeSeconds seconds since the source's newest snapshot in the bucket was written,
 *     null when it has none
 */
public record NatsSourceStatus(
    WorkerId worker,
    int rank,
    long lastEngineSeq,
    long lastStreamSeq,
    long messages,
    long coveredSkipped,
    long lagMessages,
    Double lagSeconds,
    boolean degraded,
    String degradedReason,
    long snapshotStreamSeq,
    Double snapshotAgeSeconds) {

  /** The fields of a source the transport does not know (yet), in the admin status's order. */
  static final Map<String, Object> UNSEEN = fields(null);

  /** The admin status's view of it. */
  TransportStatus.Source toSource() {
    return new TransportStatus.Source(degraded, degradedReason, fields(this));
  }

  private static Map<String, Object> fields(NatsSourceStatus s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("last_engine_seq", s == null ? null : s.lastEngineSeq());
    m.put("last_stream_seq", s == null ? null : s.lastStreamSeq());
    m.put("stream_lag_messages", s == null ? null : s.lagMessages());
    m.put("stream_lag_seconds", s == null ? null : s.lagSeconds());
    m.put("stream_messages", s == null ? 0L : s.messages());
    m.put("covered_by_snapshot", s == null ? 0L : s.coveredSkipped());
    m.put(
        "snapshot_stream_seq",
        s == null || s.snapshotStreamSeq() < 0 ? null : s.snapshotStreamSeq());
    m.put("snapshot_age_seconds", s == null ? null : s.snapshotAgeSeconds());
    return m;
  }
}
