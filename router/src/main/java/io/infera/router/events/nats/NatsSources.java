package io.infera.router.events.nats;

import io.infera.router.discovery.WorkerInfo;
import io.infera.router.events.Delivery;
import io.infera.router.events.EventSink;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.WorkerId;
import io.infera.router.nats.EventSubjects;
import io.infera.router.nats.NatsHeaders;
import io.infera.router.nats.NatsKeys;
import io.nats.client.KeyValue;
import io.nats.client.impl.Headers;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the {@code nats} transport does per source: which workers discovery knows (their ranks are
 * seeded from the bucket when they appear), the stream messages of each source (resync markers,
 * engine sequences, covered skips, events of undiscovered workers held in {@link NatsHold}), and
 * the re-seeding of sources after lost messages or while degraded. A message whose subject names a
 * pool the worker is not a discovered member of is dropped and counted: the server lets a pool's
 * credentials publish only under its own pool token, so a relay cannot speak for another pool's
 * workers, and this check keeps it from speaking for a worker it does not have. Stream-level order
 * (dedupe, gaps) is the transport's. Consumer thread only.
 */
final class NatsSources {

  // The transport's log lines, under its name.
  private static final Logger log = LoggerFactory.getLogger(NatsTransport.class);
  private static final int SUBJECT_CACHE_MAX = 4096;
  private static final int PURGE_MARKERS_MAX = 10_000;

  private final String prefix;
  private final NatsCursor cursor;
  private final NatsHold hold;
  private final NatsCounters counters;
  private final SnapshotWatch watch;
  private final EventSink sink;
  private final SnapshotSeeder seeder;
  private final Map<WorkerId, Integer> discovered = new HashMap<>();
  private final Map<WorkerId, String> pools = new HashMap<>();
  private final Map<WorkerId, Long> purgedAtRevision =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<WorkerId, Long> eldest) {
          return size() > PURGE_MARKERS_MAX;
        }
      };
  private final Map<String, EventSubjects.Source> subjects = new HashMap<>();
  private KeyValue kv;

  NatsSources(
      String prefix,
      int pageSize,
      NatsCursor cursor,
      NatsHold hold,
      NatsCounters counters,
      SnapshotWatch watch,
      SnapshotSeeder.Stream stream,
      EventSink sink) {
    this.prefix = prefix;
    this.cursor = cursor;
    this.hold = hold;
    this.counters = counters;
    this.watch = watch;
    this.sink = sink;
    this.seeder =
        new SnapshotSeeder(
            pageSize,
            cursor,
            counters,
            watch,
            stream,
            sink,
            purgedAtRevision::get,
            this::snapshotKey);
  }

  /** The bucket of the current session. */
  void use(KeyValue bucket) {
    this.kv = bucket;
    seeder.use(bucket);
  }

  /** Every rank of every discovered worker. */
  List<SourceId> expected() {
    List<SourceId> out = new ArrayList<>();
    discovered.forEach(
        (w, dp) -> {
          for (int r = 0; r < dp; r++) {
            out.add(new SourceId(w, r));
          }
        });
    return out;
  }

  /**
   * The snapshot key of a discovered worker's rank ({@code <pool>.<token>.<rank>}), or null when
   * the worker is not discovered (or its pool cannot be a key token).
   */
  String snapshotKey(SourceId id) {
    return snapshotKey(pools.get(id.worker()), id);
  }

  /** The snapshot key of {@code id} in {@code pool}, or null when the pool is null or no token. */
  static String snapshotKey(String pool, SourceId id) {
    return pool == null || !EventSubjects.validPool(pool)
        ? null
        : NatsKeys.snapshotKey(pool, id.worker(), id.dpRank());
  }

  /** Seeds a source from the bucket; see {@link SnapshotSeeder#seed}. */
  boolean seed(SourceId id, String why) throws Exception {
    return seeder.seed(id, why);
  }

  /**
   * Discovery's current list: removed workers are forgotten (their held events dropped, their older
   * snapshots never seeded again); new ranks are registered and, once the transport is initialized,
   * seeded, and a new worker takes its held events.
   */
  void workers(List<WorkerInfo> workers, boolean initialized) throws Exception {
    Map<WorkerId, Integer> next = new LinkedHashMap<>();
    Map<WorkerId, String> nextPools = new HashMap<>();
    for (WorkerInfo w : workers) {
      next.put(w.id(), w.dpSize());
      nextPools.put(w.id(), w.pool());
    }
    for (WorkerId w : new ArrayList<>(discovered.keySet())) {
      String pool = nextPools.get(w);
      if (pool != null && !pool.equals(pools.get(w))) {
        // Moved to another pool (a static config edit): its old pool's view is not its view.
        log.info("nats source worker changed pool worker={} from={} to={}", w, pools.get(w), pool);
        next.remove(w);
      }
      if (!next.containsKey(w)) {
        discovered.remove(w);
        pools.remove(w);
        cursor.removeWorker(w);
        int dropped = hold.drop(w);
        purgedAtRevision.put(w, bucketRevision());
        log.info("nats source worker removed worker={} held_dropped={}", w, dropped);
      }
    }
    for (Map.Entry<WorkerId, Integer> e : next.entrySet()) {
      WorkerId w = e.getKey();
      int dp = e.getValue();
      String pool = nextPools.get(w);
      Integer old = discovered.put(w, dp);
      pools.put(w, pool);
      int from = old == null ? 0 : old;
      for (int r = from; r < dp; r++) {
        SourceId id = new SourceId(w, r);
        cursor.register(id).pool = pool;
        if (initialized) {
          seeder.seed(id, "discovered");
        }
      }
      if (old == null && initialized) {
        List<NatsHold.Held> held = hold.take(w);
        for (NatsHold.Held h : held) {
          if (!pool.equals(h.pool())) {
            foreign(h.pool(), h.source(), h.streamSeq());
            continue;
          }
          deliver(h.source(), h.streamSeq(), h.engineSeq(), h.payload(), h.timestampMillis());
        }
        log.info(
            "nats source worker discovered worker={} ranks={} held_delivered={}",
            w,
            dp,
            held.size());
      }
    }
  }

  /**
   * One new stream message (already past the transport's dedupe): a resync marker, or a batch
   * delivered, skipped as covered, or held for an undiscovered worker.
   *
   * @param tsMillis the stream's timestamp of it, 0 when unknown
   */
  void message(String subject, long seq, Headers h, byte[] data, long tsMillis) {
    EventSubjects.Source src = source(subject);
    if (src == null) {
      return;
    }
    SourceId id = new SourceId(src.worker(), src.rank());
    String pool = pools.get(id.worker());
    if (pool != null && !pool.equals(src.pool())) {
      // Also resync markers: a reset is accepted only under the worker's own pool.
      foreign(src.pool(), id, seq);
      return;
    }
    if (h != null && h.containsKey(NatsHeaders.RESYNC)) {
      resync(id, seq);
      return;
    }
    long engineSeq;
    try {
      engineSeq = NatsHeaders.engineSeq(h == null ? null : h.getFirst(NatsHeaders.ENGINE_SEQ));
    } catch (IllegalArgumentException e) {
      counters.badHeaders.incrementAndGet();
      log.debug("nats bad header stream_seq={} error={}", seq, e.getMessage());
      engineSeq = KvEventMessage.NO_SEQ;
    }
    if (!discovered.containsKey(id.worker())) {
      hold.add(id, src.pool(), seq, engineSeq, data, tsMillis);
      return;
    }
    deliver(id, seq, engineSeq, data, tsMillis);
  }

  /** The source of a subject, or null (counted) when it names none. */
  private EventSubjects.Source source(String subject) {
    EventSubjects.Source src = subjects.get(subject);
    if (src != null) {
      return src;
    }
    try {
      src = EventSubjects.parse(prefix, subject);
    } catch (IllegalArgumentException e) {
      long n = counters.garbageSubjects.incrementAndGet();
      if (n == 1 || Long.bitCount(n) == 1) {
        log.warn("nats garbage subject skipped count={} error={}", n, e.getMessage());
      }
      return null;
    }
    if (subjects.size() >= SUBJECT_CACHE_MAX) {
      subjects.clear();
    }
    subjects.put(subject, src);
    return src;
  }

  /** A message of a worker under a pool it is not a discovered member of: dropped, counted. */
  private void foreign(String subjectPool, SourceId id, long seq) {
    long n = counters.foreignPool.incrementAndGet();
    if (n == 1 || Long.bitCount(n) == 1) {
      log.warn(
          "nats event of a worker outside the subject's pool dropped count={} source={} pool={}"
              + " discovered_pool={} stream_seq={}",
          n,
          id,
          subjectPool,
          pools.get(id.worker()),
          seq);
    }
  }

  private void deliver(SourceId id, long seq, long engineSeq, byte[] payload, long tsMillis) {
    double lag =
        tsMillis <= 0 ? Double.NaN : Math.max(0, System.currentTimeMillis() - tsMillis) / 1000.0;
    if (cursor.admit(id, seq, engineSeq, lag) == NatsCursor.Verdict.COVERED) {
      counters.coveredSkipped.incrementAndGet();
      return;
    }
    try {
      sink.accept(
          new Delivery.Streamed(
              id.worker(), id.dpRank(), seq, NatsFrames.frames(engineSeq, payload)));
    } catch (RuntimeException e) {
      counters.errors.incrementAndGet();
      log.warn("nats event sink failed, message dropped source={} stream_seq={}", id, seq, e);
    }
  }

  private void resync(SourceId id, long seq) {
    counters.resyncMarkers.incrementAndGet();
    if (!discovered.containsKey(id.worker())) {
      // Seeded from the bucket when (if) the worker appears.
      log.debug("nats resync marker of an undiscovered worker source={} stream_seq={}", id, seq);
      return;
    }
    NatsCursor.Source s = cursor.register(id);
    if (seq <= s.coveredThrough) {
      return;
    }
    boolean ok;
    try {
      ok = seeder.seed(id, "resync");
    } catch (Exception e) {
      ok = false;
      log.warn("nats resync snapshot read failed source={} error={}", id, e.toString());
    }
    if (ok) {
      counters.resyncs.incrementAndGet();
    } else {
      cursor.degrade(id, NatsCursor.Degraded.RESYNC_FAILED);
      log.warn("nats resync marker without a usable snapshot source={} stream_seq={}", id, seq);
    }
  }

  /** Stream messages {@code from..to} are gone unread: suspect sources are seeded again. */
  void lost(String stream, long from, long to) {
    long n = to - from + 1;
    counters.lostMessages.addAndGet(n);
    List<SourceId> suspects = cursor.lost(from, to);
    log.warn(
        "nats stream messages lost before they were read stream={} from_seq={} to_seq={}"
            + " count={} suspect_sources={}",
        stream,
        from,
        to,
        n,
        suspects.size());
    for (SourceId id : suspects) {
      if (discovered.containsKey(id.worker())) {
        try {
          seeder.seed(id, "loss");
        } catch (Exception e) {
          log.warn("nats snapshot read failed source={} error={}", id, e.toString());
        }
      }
    }
  }

  /**
   * Drops held events that waited too long; seeds degraded sources whose key has a newer snapshot
   * than the one tried last.
   */
  void expireAndRepair() throws Exception {
    hold.expire();
    for (NatsCursor.Source s : cursor.sources()) {
      if (s.degraded == null || !discovered.containsKey(s.id.worker())) {
        continue;
      }
      String key = snapshotKey(s.id);
      SnapshotWatch.Meta meta = key == null ? null : watch.latest(key);
      if (meta != null && meta.revision() > s.triedRevision) {
        seeder.seed(s.id, "repair");
      }
    }
  }

  /** The bucket's newest revision: snapshots up to it were written before now. */
  private long bucketRevision() {
    long rev = watch.maxRevision();
    try {
      rev = Math.max(rev, kv.getStatus().getBackingStreamInfo().getStreamState().getLastSequence());
    } catch (Exception e) {
      log.debug("nats bucket status failed, using the watched revision error={}", e.toString());
    }
    return rev;
  }
}
