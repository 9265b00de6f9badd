package io.infera.router.relay;

import io.infera.router.kv.EventBatch;
import io.infera.router.kv.EventDecodeException;
import io.infera.router.kv.KvEventDecoder;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.ViewSnapshot;
import io.infera.router.kv.WorkerId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's own view of its worker, one source per rank, built exactly as a router builds it from
 * the stream (a {@link PrefixIndex}, batches applied under the subject's rank), so its block size
 * per rank is learned from the engine's stores as a router learns it, and each snapshot carries the
 * size its router hashes were computed at. Single writer: the publishing thread.
 */
final class WorkerView {

  private static final Logger log = LoggerFactory.getLogger(WorkerView.class);

  private final WorkerId worker;
  private final PrefixIndex index;
  private final RelayCounters counters;

  WorkerView(WorkerId worker, int blockSize, RelayCounters counters) {
    this.worker = worker;
    this.index = new PrefixIndex(blockSize);
    this.counters = counters;
  }

  /**
   * Applies one batch of rank {@code rank}.
   *
   * @return its events (0 when the payload does not decode: counted, the view is unchanged)
   */
  int apply(int rank, long engineSeq, byte[] payload) {
    EventBatch decoded;
    try {
      decoded = KvEventDecoder.decode(payload);
    } catch (EventDecodeException e) {
      index.recordDecodeError(worker);
      long n = counters.decodeErrors.incrementAndGet();
      if (n == 1 || Long.bitCount(n) == 1) {
        log.warn(
            "relay payload does not decode, forwarded but not in the view rank={} count={}"
                + " kind={} error={}",
            rank,
            n,
            e.label(),
            e.getMessage());
      }
      return 0;
    }
    EventBatch batch = decoded.withRank(rank);
    index.apply(worker, engineSeq, batch);
    return batch.events().size();
  }

  /** The view of {@code rank} at stream watermark {@code streamSeq}. */
  ViewSnapshot snapshot(int rank, long streamSeq) {
    return index.snapshot(new SourceId(worker, rank), streamSeq);
  }

  /** Whether {@link #seed} takes {@code snapshot} (its block size usable for this rank). */
  boolean accepts(int rank, ViewSnapshot snapshot) {
    return index.acceptsSnapshot(new SourceId(worker, rank), snapshot);
  }

  /**
   * Replaces the view of {@code rank} by a snapshot; a non-empty one also sets the rank's block
   * size to the snapshot's.
   */
  void seed(int rank, ViewSnapshot snapshot) {
    index.seed(new SourceId(worker, rank), snapshot);
  }

  /** Empties the view of {@code rank} (before rebuilding it). */
  void reset(int rank) {
    index.resync(new SourceId(worker, rank));
  }

  /** Distinct router hashes held for {@code rank}, sorted (tests, logs). */
  long[] hashes(int rank) {
    return index.viewHashes(new SourceId(worker, rank));
  }

  long blocks(int rank) {
    return index.blocks(new SourceId(worker, rank));
  }
}
