package io.infera.router.events.nats;

import io.infera.router.events.Delivery;
import io.infera.router.events.EventSink;
import io.infera.router.events.nats.SeedRules.Verdict;
import io.infera.router.kv.EventDecodeException;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.ViewSnapshot;
import io.infera.router.kv.WorkerId;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a source's snapshot from the bucket and seeds it into the sink when {@link SeedRules}
 * allow, logging and counting every refusal. Consumer thread only.
 */
final class SnapshotSeeder {

  // The transport's log lines, under its name.
  private static final Logger log = LoggerFactory.getLogger(NatsTransport.class);

  /** What the seeder needs to know of the stream: the transport's view of it. */
  interface Stream {
    /** The stream's last sequence as last read. */
    long lastSeq();

    /** Reads the stream's state again; then {@link #lastSeq()} is current. */
    void refresh() throws Exception;

    /** When the stream was created, or null before its first read. */
    ZonedDateTime created();
  }

  private final int pageSize;
  private final NatsCursor cursor;
  private final NatsCounters counters;
  private final SnapshotWatch watch;
  private final Stream stream;
  private final EventSink sink;
  private final Function<WorkerId, Long> purgedAtRevision;
  private final Function<SourceId, String> keyOf;
  private KeyValue kv;

  /**
   * @param purgedAtRevision the bucket's revision when a worker last left discovery, or null
   * @param keyOf a source's snapshot key, null when it has none (worker not discovered)
   */
  SnapshotSeeder(
      int pageSize,
      NatsCursor cursor,
      NatsCounters counters,
      SnapshotWatch watch,
      Stream stream,
      EventSink sink,
      Function<WorkerId, Long> purgedAtRevision,
      Function<SourceId, String> keyOf) {
    this.pageSize = pageSize;
    this.cursor = cursor;
    this.counters = counters;
    this.watch = watch;
    this.stream = stream;
    this.sink = sink;
    this.purgedAtRevision = purgedAtRevision;
    this.keyOf = keyOf;
  }

  /** The bucket of the current session. */
  void use(KeyValue bucket) {
    this.kv = bucket;
  }

  /**
   * Reads the source's snapshot from the bucket and seeds it when usable.
   *
   * @param why for the log: start, discovered, resync, loss, repair
   * @return whether it was seeded
   */
  boolean seed(SourceId id, String why) throws Exception {
    String key = keyOf.apply(id);
    if (key == null) {
      return false;
    }
    KeyValueEntry e = kv.get(key);
    if (e == null || e.getOperation() != KeyValueOperation.PUT || e.getValue() == null) {
      return false;
    }
    long rev = e.getRevision();
    watch.saw(rev);
    NatsCursor.Source s = cursor.register(id);
    ZonedDateTime streamCreated = stream.created();
    Verdict v =
        SeedRules.screen(
            true,
            rev,
            instant(e.getCreated()),
            s.triedRevision,
            purgedAtRevision.apply(id.worker()),
            instant(streamCreated));
    ViewSnapshot snap = null;
    if (v == Verdict.SEED) {
      try {
        snap = ViewSnapshot.decode(e.getValue());
      } catch (EventDecodeException ex) {
        refused(Verdict.UNREADABLE, id, rev);
        log.warn(
            "nats snapshot unreadable, source replays from the stream source={} revision={}"
                + " kind={} error={}",
            id,
            rev,
            ex.label(),
            ex.getMessage());
        return false;
      }
      v = SeedRules.judge(snap, stream.lastSeq(), s.lastStreamSeq);
      if (v == Verdict.BEYOND_STREAM) {
        // The stream may have grown since it was read.
        stream.refresh();
        v = SeedRules.judge(snap, stream.lastSeq(), s.lastStreamSeq);
      }
    }
    if (v != Verdict.SEED) {
      refused(v, id, rev);
      logRefusal(v, id, rev, e, snap, s, streamCreated);
      return false;
    }
    sink.accept(new Delivery.Snapshot(id.worker(), id.dpRank(), snap));
    long created = e.getCreated() == null ? 0 : e.getCreated().toInstant().toEpochMilli();
    cursor.seeded(id, snap, rev, created);
    counters.snapshotsSeeded.incrementAndGet();
    log.info(
        "nats snapshot seeded source={} why={} pairs={} stream_seq={} engine_seq={} revision={}",
        id,
        why,
        snap.size(),
        snap.streamSeq(),
        snap.engineSeq() == KvEventMessage.NO_SEQ ? "none" : snap.engineSeq(),
        rev);
    return true;
  }

  private void refused(Verdict v, SourceId id, long rev) {
    switch (v.count()) {
      case BAD -> counters.badSnapshots.incrementAndGet();
      case STALE -> counters.staleSnapshots.incrementAndGet();
      case NONE -> {}
    }
    if (v.marksTried()) {
      cursor.tried(id, rev);
    }
  }

  private void logRefusal(
      Verdict v,
      SourceId id,
      long rev,
      KeyValueEntry e,
      ViewSnapshot snap,
      NatsCursor.Source s,
      ZonedDateTime streamCreated) {
    switch (v) {
      case PREDATES_REMOVAL ->
          log.info(
              "nats snapshot predates the worker's removal, not seeded source={} revision={}",
              id,
              rev);
      case PREDATES_STREAM ->
          log.info(
              "nats snapshot predates the stream, not seeded source={} revision={} created={}"
                  + " stream_created={}",
              id,
              rev,
              e.getCreated(),
              streamCreated);
      case WRONG_BLOCK_SIZE ->
          log.warn(
              "nats snapshot block size is not usable, not seeded source={} block_size={}"
                  + " page_size={}",
              id,
              snap.blockSize(),
              pageSize);
      case BEYOND_STREAM ->
          log.warn(
              "nats snapshot watermark is beyond the stream, not seeded source={} stream_seq={}"
                  + " stream_last_seq={}",
              id,
              snap.streamSeq(),
              stream.lastSeq());
      case STALE ->
          log.debug(
              "nats snapshot older than the applied events, not seeded source={} stream_seq={}"
                  + " applied_stream_seq={}",
              id,
              snap.streamSeq(),
              s.lastStreamSeq);
      case SEED, ABSENT, ALREADY_TRIED, UNREADABLE -> {}
    }
  }

  private static Instant instant(ZonedDateTime t) {
    return t == null ? null : t.toInstant();
  }
}
