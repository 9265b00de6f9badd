package io.infera.router.relay;

import io.infera.router.relay.StreamClient.Ack;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resyncs of ranks whose view holds batches that are not in the stream at their place ({@link
 * io.infera.router.nats.RelayProtocol}): a snapshot of the view at watermark W is written, then a
 * marker is published expecting W as the subject's last sequence; if a batch folded while its fate
 * was unknown did land after W, the expectation fails, W moves to it (it is in the view already)
 * and the snapshot is written again. Publishing thread only.
 */
final class Resyncs {

  // The publisher's log lines, under its name.
  private static final Logger log = LoggerFactory.getLogger(PublishLoop.class);

  /** How a resync turn ended for the publisher's back-off. */
  interface Outcomes {
    /** A marker could not be published: back off. */
    void failed(Exception e);

    /** A marker was stored. */
    void stored();
  }

  private final RelayRank[] ranks;
  private final WorkerView view;
  private final SnapshotWriter snapshots;
  private final RelayCounters counters;
  private final RelayMessages messages;
  private final InOrderPublisher inOrder;

  Resyncs(
      RelayRank[] ranks,
      WorkerView view,
      SnapshotWriter snapshots,
      RelayCounters counters,
      RelayMessages messages,
      InOrderPublisher inOrder) {
    this.ranks = ranks;
    this.view = view;
    this.snapshots = snapshots;
    this.counters = counters;
    this.messages = messages;
    this.inOrder = inOrder;
  }

  /** Whether some rank waits for a resync. */
  boolean pending() {
    for (RelayRank r : ranks) {
      if (r.resyncPending) {
        return true;
      }
    }
    return false;
  }

  /** Moves every pending resync one step: snapshot, wait for it, marker. Stops at a failure. */
  void step(long now, Outcomes outcomes) {
    for (RelayRank r : ranks) {
      if (!r.resyncPending) {
        continue;
      }
      if (r.resyncSnapshotId == 0) {
        r.resyncWatermark = r.lastStreamSeq;
        r.resyncSnapshotId = snapshots.submit(r.rank, view.snapshot(r.rank, r.lastStreamSeq));
        r.snapshotTaken(now);
        continue;
      }
      if (!snapshots.written(r.rank, r.resyncSnapshotId)) {
        continue;
      }
      Ack ack;
      try {
        ack =
            inOrder.publish(
                r, messages.marker(r.rank, r.resyncReason, r.resyncEpisode, r.resyncWatermark));
      } catch (Exception e) {
        outcomes.failed(e);
        return;
      }
      if (ack == null) {
        // A batch folded while its fate was unknown did land after the snapshot's watermark; it
        // is in the view already. Snapshot again with it included.
        log.info(
            "relay resync: a folded batch was stored meanwhile, snapshotting again rank={}"
                + " watermark={} subject_last_seq={}",
            r.rank,
            r.resyncWatermark,
            inOrder.lastActual());
        r.lastStreamSeq = Math.max(r.lastStreamSeq, inOrder.lastActual());
        r.resyncSnapshotId = 0;
        continue;
      }
      r.lastStreamSeq = Math.max(r.lastStreamSeq, ack.streamSeq());
      r.resyncPending = false;
      r.resyncSnapshotId = 0;
      r.resyncEpisode++;
      counters.resyncs.incrementAndGet();
      outcomes.stored();
      log.warn(
          "relay resync marker stored rank={} reason={} stream_seq={} snapshot_stream_seq={}"
              + " blocks={}",
          r.rank,
          r.resyncReason,
          ack.streamSeq(),
          r.resyncWatermark,
          view.blocks(r.rank));
    }
  }
}
