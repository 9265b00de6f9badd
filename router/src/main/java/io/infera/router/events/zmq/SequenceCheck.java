package io.infera.router.events.zmq;

/**
 * What one sequenced message from an engine's PUB socket means for its source, given the last
 * sequence seen: pure, so the poller only acts on the verdict. vLLM numbers each rank's batches 0,
 * 1, 2, …; a jump is a gap (ZMQ dropped messages, or they were sent while disconnected), a sequence
 * at or below the last one an engine restart.
 */
final class SequenceCheck {

  /** The last sequence of a source that has not sent a sequenced message yet. */
  static final long UNKNOWN = Long.MIN_VALUE;

  /** The kinds of message. */
  enum Kind {
    /** Already delivered by an idle probe's replay: skip it. */
    PROBED,
    /** A negative sequence (not one vLLM sends): delivered as it is, the position unchanged. */
    UNSEQUENCED,
    /** The source's first sequenced message; batches before it may be replayed (catch-up). */
    FIRST,
    /** The next sequence. */
    IN_ORDER,
    /** Sequences were skipped: replay them before this one. */
    GAP,
    /** The sequence went down (or repeated): the engine restarted; may replay from 0. */
    RESTART
  }

  /**
   * A verdict.
   *
   * @param fillFrom first sequence to ask the replay socket for
   * @param fillTo the sequence of this message: replay delivers those before it ({@code fillTo <=
   *     fillFrom}: nothing to replay)
   */
  record Verdict(Kind kind, long fillFrom, long fillTo) {

    /** Whether batches before this message are to be replayed. */
    boolean fills() {
      return fillTo > fillFrom;
    }
  }

  private SequenceCheck() {}

  /**
   * Judges sequence {@code seq} of a source.
   *
   * @param last the source's last sequence, or {@link #UNKNOWN}
   * @param probedFrom first sequence an idle probe replayed that may arrive live again
   * @param probedThrough last such sequence ({@code < probedFrom}: none)
   * @param catchUp whether to replay what precedes a first message or follows a restart
   */
  static Verdict check(long last, long seq, long probedFrom, long probedThrough, boolean catchUp) {
    if (seq >= probedFrom && seq <= probedThrough) {
      return new Verdict(Kind.PROBED, 0, 0);
    }
    if (seq < 0) {
      return new Verdict(Kind.UNSEQUENCED, 0, 0);
    }
    if (last == UNKNOWN) {
      return new Verdict(Kind.FIRST, 0, catchUp ? seq : 0);
    }
    if (seq > last + 1) {
      return new Verdict(Kind.GAP, last + 1, seq);
    }
    if (seq <= last) {
      return new Verdict(Kind.RESTART, 0, catchUp ? seq : 0);
    }
    return new Verdict(Kind.IN_ORDER, 0, 0);
  }

  /**
   * The sequence an idle probe asks for: the last one itself (the engine's buffer always holds its
   * newest batches, so an answer without it reveals a restart), or 0 before the first.
   */
  static long probeRequestFrom(long last) {
    return last == UNKNOWN ? 0 : last;
  }

  /** The first sequence an idle probe delivers: the one after the last, or 0. */
  static long probeDeliverFrom(long last) {
    return last == UNKNOWN ? 0 : last + 1;
  }

  /**
   * Whether a complete probe answer shows the engine restarted: it held neither the last sequence
   * nor anything after it, so the engine's newest sequence is below the last one seen.
   *
   * @param incomplete the answer timed out or was abandoned at a malformed message: it proves
   *     nothing
   * @param seen answers at or after the requested start
   */
  static boolean probeShowsRestart(long last, boolean incomplete, int seen) {
    return !incomplete && last != UNKNOWN && seen == 0;
  }
}
