package io.infera.router.relay;

import io.infera.router.kv.EventDecodeException;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.ViewSnapshot;
import io.infera.router.nats.RelayProtocol;
import io.infera.router.relay.StreamClient.Stored;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the relay's view of a rank at start: its snapshot from the bucket, then the subject's
 * later messages, so that the view is exactly the stream's content; and tells where the stream ends
 * (for {@link IngestFilter}). Idempotent: a failed attempt may simply be repeated.
 */
final class ViewRecovery {

  // The publisher's log lines, under its name.
  private static final Logger log = LoggerFactory.getLogger(PublishLoop.class);

  /**
   * A recovered rank.
   *
   * @param lastStreamSeq the subject's last stored message the view includes: the watermark
   * @param changed whether the view holds more than its snapshot (a new snapshot is due)
   * @param resume the stream's last batch of the rank, or null when there is none
   */
  record Rank(long lastStreamSeq, boolean changed, IngestFilter.Resume resume) {}

  private final RelayOptions options;
  private final StreamClient client;
  private final WorkerView view;

  ViewRecovery(RelayOptions options, StreamClient client, WorkerView view) {
    this.options = options;
    this.client = client;
    this.view = view;
  }

  /** Rebuilds the view of {@code rank} (subject {@code subject}). */
  Rank recover(int rank, String subject) throws Exception {
    view.reset(rank);
    long watermark = 0;
    long engineSeq = KvEventMessage.NO_SEQ;
    boolean seeded = false;
    Optional<byte[]> bytes = client.getSnapshot(options.snapshotKey(rank));
    if (bytes.isPresent()) {
      try {
        ViewSnapshot s = ViewSnapshot.decode(bytes.get());
        if (!view.accepts(rank, s)) {
          log.warn(
              "relay snapshot block size not usable, rebuilding from the stream rank={}"
                  + " block_size={} expected={}",
              rank,
              s.blockSize(),
              options.blockSize());
        } else {
          view.seed(rank, s);
          watermark = s.streamSeq();
          engineSeq = s.engineSeq();
          seeded = true;
        }
      } catch (EventDecodeException e) {
        log.warn(
            "relay snapshot unreadable, rebuilding from the stream rank={} error={}",
            rank,
            e.getMessage());
      }
    }
    Optional<Stored> last = client.lastMessage(subject);
    long lastSeq = last.map(Stored::streamSeq).orElse(0L);
    long[] tail = {0, engineSeq};
    if (lastSeq > watermark) {
      client.read(
          subject,
          watermark + 1,
          lastSeq,
          m -> {
            if (RelayMessages.isMarker(m)) {
              return;
            }
            long seq = RelayMessages.engineSeq(m);
            view.apply(rank, seq, m.payload());
            tail[0]++;
            if (seq != KvEventMessage.NO_SEQ) {
              tail[1] = seq;
            }
          });
    } else if (seeded && last.isPresent() && lastSeq < watermark) {
      log.warn(
          "relay snapshot is ahead of the stream (stream recreated?) rank={} snapshot_seq={}"
              + " stream_last_seq={}",
          rank,
          watermark,
          lastSeq);
    }
    IngestFilter.Resume resume = null;
    if (last.isPresent()
        && !RelayMessages.isMarker(last.get())
        && RelayMessages.engineSeq(last.get()) >= 0) {
      Stored m = last.get();
      resume =
          new IngestFilter.Resume(
              RelayMessages.engineSeq(m), RelayProtocol.payloadHash(m.payload()), true);
    } else if (tail[1] != KvEventMessage.NO_SEQ) {
      resume = new IngestFilter.Resume(tail[1], 0, false);
    }
    log.info(
        "relay view recovered rank={} subject={} snapshot_stream_seq={} tail_batches={}"
            + " stream_last_seq={} engine_seq={} blocks={}",
        rank,
        subject,
        seeded ? watermark : -1,
        tail[0],
        lastSeq,
        tail[1] == KvEventMessage.NO_SEQ ? -1 : tail[1],
        view.blocks(rank));
    return new Rank(Math.max(watermark, lastSeq), !seeded || tail[0] > 0, resume);
  }
}
