package io.infera.router.events.nats;

import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.ViewSnapshot;
import io.infera.router.kv.WorkerId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where the {@code nats} transport stands in the event stream: the last processed stream sequence
 * and, per source, what its snapshot covers, its last engine and stream sequences and whether its
 * view may be incomplete.
 *
 * <p>The rules: a stream sequence is processed once ({@link #isNew}); a source skips what its
 * seeded snapshot covers (sequence {@code <=} the watermark, {@link Verdict#COVERED}); a snapshot
 * never rolls back events already applied ({@link #seedable}). Loss is judged from sequences alone:
 * lost stream messages make every source they may have belonged to suspect ({@link
 * Degraded#EVENTS_LOST}) until a snapshot covers them or the source's next engine sequence proves
 * it missed nothing; an engine sequence that jumps (or a first batch that is not the engine's
 * first, with no snapshot to stand for the ones before) makes it {@link Degraded#ENGINE_GAP} until
 * a snapshot is seeded.
 *
 * <p>One writer (the transport's consumer thread); status fields are volatile for readers.
 */
final class NatsCursor {

  /** Why a source's view may be incomplete. */
  enum Degraded {
    /** Stream messages it may have had were lost (retention, deletion) and nothing covers them. */
    EVENTS_LOST,
    /** Its engine sequence jumped: batches never reached the stream. */
    ENGINE_GAP,
    /** A resync marker asked for a snapshot that was missing, unreadable or stale. */
    RESYNC_FAILED;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** What to do with a source's message. */
  enum Verdict {
    /** Apply it. */
    DELIVER,
    /** The source's seeded snapshot already includes it: skip. */
    COVERED
  }

  /** One source's position. Written by the consumer thread only. */
  static final class Source {
    final SourceId id;
    // The discovered pool of the worker (its snapshot key's first token), null until discovered.
    volatile String pool;
    volatile long coveredThrough;
    volatile long lastStreamSeq;
    volatile long lastEngineSeq = KvEventMessage.NO_SEQ;
    volatile long messages;
    volatile long covered;
    volatile double lagSeconds = Double.NaN;
    volatile Degraded degraded;
    volatile long snapshotStreamSeq = -1;
    volatile long snapshotRevision;
    volatile long snapshotCreatedMillis;
    long lostThrough;
    // The newest snapshot revision tried (seeded or refused): not fetched again.
    long triedRevision;

    Source(SourceId id) {
      this.id = id;
    }

    boolean hasSnapshot() {
      return snapshotStreamSeq >= 0;
    }
  }

  private final Map<SourceId, Source> sources = new ConcurrentHashMap<>();
  private volatile long processed;

  /** The last stream sequence processed (delivered, skipped or held); 0 before the first. */
  long processed() {
    return processed;
  }

  /** Sets where consumption starts: {@code seq} is the next sequence wanted. */
  void startAt(long seq) {
    processed = Math.max(0, seq - 1);
  }

  /** Whether {@code streamSeq} is after everything processed (a redelivery is not). */
  boolean isNew(long streamSeq) {
    return streamSeq > processed;
  }

  /** Stream sequences between the last processed one and {@code streamSeq}, which never came. */
  long gapBefore(long streamSeq) {
    return Math.max(0, streamSeq - processed - 1);
  }

  /** Marks {@code streamSeq} processed. */
  void advance(long streamSeq) {
    if (streamSeq > processed) {
      processed = streamSeq;
    }
  }

  /** The source, created when new (a discovered worker's rank, or the first message of one). */
  Source register(SourceId id) {
    return sources.computeIfAbsent(id, Source::new);
  }

  Source get(SourceId id) {
    return sources.get(id);
  }

  Collection<Source> sources() {
    return sources.values();
  }

  /** Forgets every source of a worker that left discovery. */
  void removeWorker(WorkerId worker) {
    sources.keySet().removeIf(id -> id.worker().equals(worker));
  }

  /**
   * Where a starting router consumes from: after the smallest snapshot watermark of the {@code
   * expected} sources; 1 when one of them has no snapshot; after the stream's end when nothing is
   * expected (sources that appear later are seeded from their own snapshots).
   */
  long startSeq(Collection<SourceId> expected, long streamLastSeq) {
    if (expected.isEmpty()) {
      return streamLastSeq + 1;
    }
    long min = Long.MAX_VALUE;
    for (SourceId id : expected) {
      Source s = sources.get(id);
      if (s == null || !s.hasSnapshot()) {
        return 1;
      }
      min = Math.min(min, s.coveredThrough);
    }
    return min + 1;
  }

  /**
   * Whether {@code snapshot} may replace the source's view: it must include every message of the
   * source already applied (a snapshot never rolls a view back).
   */
  boolean seedable(SourceId id, ViewSnapshot snapshot) {
    Source s = sources.get(id);
    return s == null || !SeedRules.rollsBack(snapshot.streamSeq(), s.lastStreamSeq);
  }

  /** The source's view was replaced by {@code snapshot} (KV revision and creation time given). */
  void seeded(SourceId id, ViewSnapshot snapshot, long revision, long createdMillis) {
    Source s = register(id);
    long w = snapshot.streamSeq();
    s.coveredThrough = Math.max(s.coveredThrough, w);
    s.lastStreamSeq = Math.max(s.lastStreamSeq, w);
    s.lastEngineSeq = snapshot.engineSeq();
    s.snapshotStreamSeq = w;
    s.snapshotRevision = revision;
    s.snapshotCreatedMillis = createdMillis;
    s.triedRevision = Math.max(s.triedRevision, revision);
    // The seed fixes engine gaps and failed resyncs; lost stream messages only if it covers them.
    s.degraded = w >= s.lostThrough ? null : Degraded.EVENTS_LOST;
  }

  /** A snapshot revision was looked at and not seeded (unreadable, stale): don't fetch it again. */
  void tried(SourceId id, long revision) {
    Source s = register(id);
    s.triedRevision = Math.max(s.triedRevision, revision);
  }

  void degrade(SourceId id, Degraded why) {
    register(id).degraded = why;
  }

  /**
   * Stream sequences {@code from..to} are gone unread: every source whose snapshot does not cover
   * them may have lost events.
   *
   * @return the sources now suspect
   */
  List<SourceId> lost(long from, long to) {
    List<SourceId> out = new ArrayList<>();
    for (Source s : sources.values()) {
      if (s.coveredThrough < to) {
        s.lostThrough = Math.max(s.lostThrough, to);
        if (s.degraded == null) {
          s.degraded = Degraded.EVENTS_LOST;
        }
        out.add(s.id);
      }
    }
    return out;
  }

  /**
   * The stream was recreated (its last sequence went below what was processed): positions start
   * over at {@code nextSeq}; views and engine sequences stay.
   */
  void streamReset(long nextSeq) {
    processed = Math.max(0, nextSeq - 1);
    for (Source s : sources.values()) {
      s.coveredThrough = 0;
      s.lastStreamSeq = 0;
      s.lostThrough = 0;
    }
  }

  /**
   * Judges one message of a source (already {@link #advance advanced}) and, when it is to be
   * delivered, records it.
   *
   * @param engineSeq the engine's batch sequence, or {@link KvEventMessage#NO_SEQ}
   * @param lagSeconds time from the message's stream timestamp to now
   */
  Verdict admit(SourceId id, long streamSeq, long engineSeq, double lagSeconds) {
    Source s = register(id);
    if (streamSeq <= s.coveredThrough) {
      s.covered = s.covered + 1;
      return Verdict.COVERED;
    }
    if (engineSeq != KvEventMessage.NO_SEQ) {
      long last = s.lastEngineSeq;
      if (last == KvEventMessage.NO_SEQ) {
        if (engineSeq == 0) {
          // A fresh engine's first batch: nothing can be missing before it.
          if (s.degraded == Degraded.EVENTS_LOST) {
            s.degraded = null;
          }
        } else if (!s.hasSnapshot()) {
          // Batches 0..engineSeq-1 never reached this router and no snapshot stands for them.
          s.degraded = Degraded.ENGINE_GAP;
        }
        s.lastEngineSeq = engineSeq;
      } else if (engineSeq == last + 1) {
        if (s.degraded == Degraded.EVENTS_LOST) {
          s.degraded = null;
        }
        s.lastEngineSeq = engineSeq;
      } else if (engineSeq > last + 1) {
        s.degraded = Degraded.ENGINE_GAP;
        s.lastEngineSeq = engineSeq;
      } else if (engineSeq < last) {
        // Engine restart: the index clears the view; complete if the new engine starts at 0.
        s.degraded = engineSeq == 0 ? null : Degraded.ENGINE_GAP;
        s.lostThrough = 0;
        s.lastEngineSeq = engineSeq;
      }
      // engineSeq == last: a republished batch, the index skips it.
    }
    s.lastStreamSeq = streamSeq;
    s.messages = s.messages + 1;
    s.lagSeconds = lagSeconds;
    return Verdict.DELIVER;
  }
}
