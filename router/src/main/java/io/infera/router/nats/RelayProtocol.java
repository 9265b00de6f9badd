package io.infera.router.nats;

import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.WorkerId;
import net.openhft.hashing.LongHashFunction;

/**
 * What the relay puts on NATS, and what a consumer of the stream must do with it
 * (docs/contracts.md, "NATS event plane").
 *
 * <h2>Messages on {@code <prefix>.<token>.<rank>}</h2>
 *
 * <ol>
 *   <li><b>Batch</b>: the payload is the engine's msgpack batch byte for byte. Headers: {@value
 *       NatsHeaders#ENGINE_SEQ} (decimal engine sequence; absent when the engine sent a two-frame
 *       message without one), {@value NatsHeaders#ENGINE}, {@value NatsHeaders#BLOCK_SIZE}, and
 *       JetStream's {@code Nats-Msg-Id} (see {@link #batchMessageId}). The subject's rank is
 *       authoritative: apply the batch to source (worker, subject rank) whatever {@code
 *       data_parallel_rank} the payload carries; the relay's own view (and so its snapshots) does
 *       the same. Within a subject, batches are in engine order, and the relay never republishes a
 *       batch already in the stream (not after a reconnect, not after its own restart), so an
 *       engine sequence that goes down means the engine restarted.
 *   <li><b>Resync marker</b>: empty payload, header {@value NatsHeaders#RESYNC} with a reason
 *       ({@value #REASON_OVERFLOW}, {@value #REASON_REORDER} or {@value #REASON_STREAM_RESET}),
 *       plus {@value NatsHeaders#ENGINE} and {@value NatsHeaders#BLOCK_SIZE}; no engine sequence
 *       header. It means: the relay's view of this source holds batches that are not in the stream
 *       at their place (the buffer overflowed while NATS was away, or a batch could not be stored
 *       in engine order). Before publishing the marker the relay has written a snapshot of that
 *       view to the bucket (key {@code <token>.<rank>}), and that snapshot's watermark is at least
 *       the stream sequence of every message of the subject stored before the marker. A consumer
 *       that reaches a marker must seed the source from the bucket's current snapshot of the key
 *       (any revision it reads after seeing the marker qualifies) and then apply the subject's
 *       messages whose stream sequence is greater than that snapshot's watermark. A marker at or
 *       below the watermark of the snapshot a consumer seeded is already covered: skip it.
 * </ol>
 *
 * <h2>Snapshots</h2>
 *
 * The value at key {@code <token>.<rank>} is a {@link io.infera.router.kv.ViewSnapshot}: the
 * relay's view of the source (engine → router hash pairs, the last engine sequence it includes) and
 * {@code stream_seq} = W, the stream sequence of the last message of the subject the view includes.
 * Seeding a view from it and applying the subject's messages with stream sequence {@code > W}, in
 * order, gives exactly the relay's view: nothing is missed, nothing applied twice. A starting
 * consumer seeds every source it knows, consumes the stream from the smallest W + 1 (from the start
 * when a source has no snapshot) and skips, per source, messages {@code <= W}. Snapshots are
 * written every N events or T seconds when the view changed, at most once per minimum interval,
 * right before every resync marker, and on shutdown.
 */
public final class RelayProtocol {

  /**
   * Marker reason: the buffer overflowed while NATS was away; the skipped batches are folded in.
   */
  public static final String REASON_OVERFLOW = "overflow";

  /**
   * Marker reason: after a reconnect a batch could no longer be stored in engine order (a later one
   * of the same subject had landed first), or the stream acknowledged batches out of order.
   */
  public static final String REASON_REORDER = "reorder";

  /**
   * Marker reason: the stream was deleted and recreated (its sequences started over below the
   * relay's watermark); the relay's view holds batches the new stream never had.
   */
  public static final String REASON_STREAM_RESET = "stream_reset";

  private static final LongHashFunction XXH3 = LongHashFunction.xx3();

  private RelayProtocol() {}

  /** The xxh3-64 of a payload: identifies a batch among the engine's incarnations. */
  public static long payloadHash(byte[] payload) {
    return XXH3.hashBytes(payload);
  }

  /**
   * {@code Nats-Msg-Id} of a sequenced batch: {@code <token>.<rank>.<seq>.<payload hash>}. The same
   * batch always gets the same id (a replayed or retried batch is deduplicated by JetStream within
   * the stream's duplicate window), and a restarted engine's batch with a reused sequence gets
   * another (its payload carries another timestamp).
   */
  public static String batchMessageId(WorkerId worker, int rank, long engineSeq, long payloadHash) {
    if (engineSeq == KvEventMessage.NO_SEQ) {
      throw new IllegalArgumentException("a batch without a sequence has no stable id");
    }
    return EventSubjects.token(worker) + "." + rank + "." + engineSeq + "." + hex16(payloadHash);
  }

  private static String hex16(long v) {
    String h = Long.toHexString(v);
    return h.length() == 16 ? h : "0".repeat(16 - h.length()) + h;
  }

  /** {@code Nats-Msg-Id} of a batch without sequence: unique within one relay run. */
  public static String unsequencedMessageId(WorkerId worker, int rank, String runId, long ordinal) {
    return EventSubjects.token(worker) + "." + rank + ".n." + runId + "." + ordinal;
  }

  /**
   * {@code Nats-Msg-Id} of a resync marker: {@code <token>.<rank>.resync.<run>.<episode>.<W>}, so
   * that a retried marker is stored once.
   */
  public static String resyncMessageId(
      WorkerId worker, int rank, String runId, long episode, long watermark) {
    return EventSubjects.token(worker)
        + "."
        + rank
        + ".resync."
        + runId
        + "."
        + episode
        + "."
        + watermark;
  }

  /** Whether a message's {@value NatsHeaders#RESYNC} header value (or null) marks a resync. */
  public static boolean isResync(String headerValue) {
    return headerValue != null;
  }
}
