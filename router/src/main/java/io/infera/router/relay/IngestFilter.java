package io.infera.router.relay;

import io.infera.router.kv.KvEventMessage;
import io.infera.router.nats.RelayProtocol;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which received engine messages become stream batches, per socket rank, so that each
 * engine batch is stored once and in engine order.
 *
 * <p>Steady state mirrors {@link io.infera.router.kv.PrefixIndex#apply}: a sequence equal to the
 * last forwarded one is a duplicate (skipped); a lower one is an engine restart (forwarded: the
 * relay's view and every router clear the source on it); a higher one is forwarded (a gap the
 * transport could not fill stays a gap). Within one relay run the ZMQ transport never delivers a
 * replayed batch at or below the last one it delivered, so a lower sequence really is a restart.
 *
 * <p>At start the stream may already hold batches of this engine (the relay restarted, the engine
 * did not), and the transport's catch-up replays the engine's whole buffer. Given the stream's last
 * batch of the rank, L (its sequence and payload hash), replayed batches below L are held until the
 * engine's incarnation is known: meeting L with the same payload (or any payload when its hash is
 * unknown) proves the same incarnation, and everything up to L is skipped; a live batch at or below
 * L, or L with another payload, proves a restarted engine, and the held batches are forwarded; a
 * batch above L ends the question (what is held is dropped: the same incarnation).
 *
 * <p>Threading: confined to the ZMQ poller thread.
 */
final class IngestFilter {

  private static final Logger log = LoggerFactory.getLogger(IngestFilter.class);
  private static final long NONE = KvEventMessage.NO_SEQ;

  /** Replayed batches held at most per rank while the engine's incarnation is unknown. */
  static final int MAX_HELD = 100_000;

  /**
   * The stream's last batch of a rank when the relay starts.
   *
   * @param engineSeq its engine sequence
   * @param payloadHash {@link RelayProtocol#payloadHash} of its payload, when known
   * @param hashKnown false when the last message was a resync marker (or aged out) and only the
   *     sequence is known, from the snapshot
   */
  record Resume(long engineSeq, long payloadHash, boolean hashKnown) {}

  private static final class RankState {
    long lastSeq = NONE;
    Resume resume;
    final ArrayDeque<RelayBatch> held = new ArrayDeque<>();
  }

  private final RankState[] ranks;
  private final RelayCounters counters;
  private long ordinal;

  /**
   * @param resume per rank, the stream's last batch (ranks without one start fresh)
   */
  IngestFilter(int dpSize, Map<Integer, Resume> resume, RelayCounters counters) {
    this.ranks = new RankState[dpSize];
    for (int r = 0; r < dpSize; r++) {
      ranks[r] = new RankState();
      ranks[r].resume = resume.get(r);
    }
    this.counters = counters;
  }

  /**
   * One message from rank {@code rank}'s socket.
   *
   * @param frames {@code [topic, seq, payload]}, {@code [topic, payload]} or ATOM's topic-less
   *     {@code [payload]} (payload = last frame)
   * @param replayed whether it came from the replay socket
   * @return the batches to publish, in order (often just this one, none when skipped)
   */
  List<RelayBatch> accept(int rank, List<byte[]> frames, boolean replayed, long nowNanos) {
    counters.received.incrementAndGet();
    if (replayed) {
      counters.replayed.incrementAndGet();
    }
    if (rank < 0 || rank >= ranks.length || frames == null || frames.isEmpty()) {
      counters.malformed.incrementAndGet();
      return List.of();
    }
    byte[] payload = frames.get(frames.size() - 1);
    long seq = NONE;
    if (frames.size() == 3 && frames.get(1) != null && frames.get(1).length == 8) {
      try {
        seq = KvEventMessage.seqFrame(frames.get(1));
      } catch (Exception e) {
        seq = NONE;
      }
      if (seq < 0) {
        // Not a sequence an engine sends (the replay sentinel never reaches here).
        counters.malformed.incrementAndGet();
        seq = NONE;
      }
    } else if (frames.size() != 1 && frames.size() != 2) {
      counters.malformed.incrementAndGet();
    }
    if (payload == null) {
      counters.malformed.incrementAndGet();
      return List.of();
    }
    RelayBatch b =
        new RelayBatch(rank, seq, payload, RelayProtocol.payloadHash(payload), nowNanos, ordinal++);
    RankState s = ranks[rank];
    return s.resume != null ? resume(s, b, replayed) : steady(s, b);
  }

  private List<RelayBatch> steady(RankState s, RelayBatch b) {
    if (!b.hasSeq()) {
      return List.of(b);
    }
    long q = b.engineSeq();
    if (s.lastSeq != NONE) {
      if (q == s.lastSeq) {
        counters.duplicatesSkipped.incrementAndGet();
        return List.of();
      }
      if (q < s.lastSeq) {
        counters.engineRestarts.incrementAndGet();
        log.info(
            "relay engine sequence went down, engine restarted rank={} last_seq={} seq={}",
            b.rank(),
            s.lastSeq,
            q);
      }
    }
    s.lastSeq = q;
    return List.of(b);
  }

  private List<RelayBatch> resume(RankState s, RelayBatch b, boolean replayed) {
    Resume r = s.resume;
    if (!b.hasSeq()) {
      return release(s, b, "batch without sequence");
    }
    long q = b.engineSeq();
    long last = r.engineSeq();
    if (q == last) {
      if (!r.hashKnown() || r.payloadHash() == b.payloadHash()) {
        int dropped = s.held.size();
        skipHeld(s);
        counters.resumeSkipped.incrementAndGet();
        resumed(s, last);
        log.info(
            "relay resumed after the stream's last batch rank={} last_seq={} skipped={}"
                + " same_payload={}",
            b.rank(),
            last,
            dropped + 1,
            r.hashKnown());
        return List.of();
      }
      return release(s, b, "same sequence, other payload");
    }
    if (q > last) {
      if (!s.held.isEmpty()) {
        log.warn(
            "relay replay skipped the stream's last batch; assuming the same engine run rank={}"
                + " last_seq={} seq={} dropped={}",
            b.rank(),
            last,
            q,
            s.held.size());
      } else {
        log.info("relay resumed rank={} stream_last_seq={} seq={}", b.rank(), last, q);
      }
      skipHeld(s);
      resumed(s, last);
      return steady(s, b);
    }
    if (replayed) {
      if (s.held.size() >= MAX_HELD) {
        s.held.pollFirst();
        counters.resumeSkipped.incrementAndGet();
      }
      s.held.addLast(b);
      return List.of();
    }
    return release(s, b, "live sequence below the stream's last");
  }

  private void resumed(RankState s, long last) {
    s.resume = null;
    s.lastSeq = last;
  }

  private void skipHeld(RankState s) {
    counters.resumeSkipped.addAndGet(s.held.size());
    s.held.clear();
  }

  /** The engine is not the one whose batches end the stream: forward what was held, then b. */
  private List<RelayBatch> release(RankState s, RelayBatch b, String why) {
    Resume r = s.resume;
    s.resume = null;
    s.lastSeq = NONE;
    counters.engineRestarts.incrementAndGet();
    log.info(
        "relay engine restarted while the relay was away rank={} stream_last_seq={} seq={}"
            + " forwarded={} why={}",
        b.rank(),
        r.engineSeq(),
        b.hasSeq() ? b.engineSeq() : -1,
        s.held.size() + 1,
        why);
    List<RelayBatch> out = new ArrayList<>(s.held.size() + 1);
    while (!s.held.isEmpty()) {
      out.addAll(steady(s, s.held.pollFirst()));
    }
    out.addAll(steady(s, b));
    return out;
  }
}
