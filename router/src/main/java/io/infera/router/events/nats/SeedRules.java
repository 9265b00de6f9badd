package io.infera.router.events.nats;

import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.ViewSnapshot;
import java.time.Instant;

/**
 * Whether a snapshot read from the bucket may seed its source (docs/contracts.md, "NATS event
 * plane"): the rules, pure, so that the {@link SnapshotSeeder} only reads, logs and counts. The
 * checks run in this order; the first that fails decides.
 */
final class SeedRules {

  /** Which counter a refused snapshot adds to. */
  enum Count {
    NONE,
    /** {@code infera.nats.snapshots.bad}. */
    BAD,
    /** {@code infera.nats.snapshots.stale}. */
    STALE
  }

  /** What to do with a snapshot. */
  enum Verdict {
    /** Seed it. */
    SEED(false, Count.NONE),
    /** Nothing is stored under the key (or it was deleted). */
    ABSENT(false, Count.NONE),
    /** This revision (or a newer one) was looked at before. */
    ALREADY_TRIED(false, Count.NONE),
    /** Written before the worker left discovery: it must not resurrect the old view. */
    PREDATES_REMOVAL(true, Count.NONE),
    /** Written before the stream was (re)created: its watermark names another stream's messages. */
    PREDATES_STREAM(true, Count.NONE),
    /** It does not decode. */
    UNREADABLE(true, Count.BAD),
    /** Its block size is not usable at all ({@link PrefixIndex#usableBlockSize}). */
    WRONG_BLOCK_SIZE(true, Count.BAD),
    /** Its watermark is beyond the stream's last sequence. */
    BEYOND_STREAM(true, Count.BAD),
    /** It predates events of the source already applied: seeding would roll the view back. */
    STALE(true, Count.STALE);

    private final boolean marksTried;
    private final Count count;

    Verdict(boolean marksTried, Count count) {
      this.marksTried = marksTried;
      this.count = count;
    }

    /** Whether the revision is remembered as tried, so it is not fetched again. */
    boolean marksTried() {
      return marksTried;
    }

    Count count() {
      return count;
    }
  }

  private SeedRules() {}

  /**
   * The checks before decoding.
   *
   * @param present whether the key holds a value (a put, not a delete)
   * @param created when the server stored it, or null when unknown
   * @param triedRevision the newest revision of the key already looked at (0: none)
   * @param purgedAtRevision the bucket's revision when the worker last left discovery, or null
   * @param streamCreated when the stream was created, or null when unknown
   * @return {@link Verdict#SEED} when decoding may follow
   */
  static Verdict screen(
      boolean present,
      long revision,
      Instant created,
      long triedRevision,
      Long purgedAtRevision,
      Instant streamCreated) {
    if (!present) {
      return Verdict.ABSENT;
    }
    if (revision <= triedRevision) {
      return Verdict.ALREADY_TRIED;
    }
    if (purgedAtRevision != null && revision <= purgedAtRevision) {
      return Verdict.PREDATES_REMOVAL;
    }
    // Server clock on both sides.
    if (created != null && streamCreated != null && created.isBefore(streamCreated)) {
      return Verdict.PREDATES_STREAM;
    }
    return Verdict.SEED;
  }

  /**
   * The checks on the decoded snapshot.
   *
   * @param streamLastSeq the stream's last sequence as known (read it again before believing a
   *     {@link Verdict#BEYOND_STREAM})
   * @param appliedStreamSeq the stream sequence of the source's last applied message (0: none)
   */
  static Verdict judge(ViewSnapshot snapshot, long streamLastSeq, long appliedStreamSeq) {
    // Any usable block size seeds: sizes are per worker (the index checks the fleet's limit of
    // distinct sizes when it seeds); an empty view says nothing about the size.
    if (snapshot.size() > 0 && !PrefixIndex.usableBlockSize(snapshot.blockSize())) {
      return Verdict.WRONG_BLOCK_SIZE;
    }
    if (snapshot.streamSeq() > streamLastSeq) {
      return Verdict.BEYOND_STREAM;
    }
    if (rollsBack(snapshot.streamSeq(), appliedStreamSeq)) {
      return Verdict.STALE;
    }
    return Verdict.SEED;
  }

  /**
   * Whether a snapshot with watermark {@code snapshotStreamSeq} misses messages of its source
   * already applied (up to {@code appliedStreamSeq}): a snapshot never rolls a view back.
   */
  static boolean rollsBack(long snapshotStreamSeq, long appliedStreamSeq) {
    return snapshotStreamSeq < appliedStreamSeq;
  }
}
