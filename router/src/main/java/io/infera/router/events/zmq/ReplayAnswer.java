package io.infera.router.events.zmq;

import java.util.List;
import java.util.Locale;

/**
 * One message of a replay socket's answer as a DEALER receives it, parsed (docs/contracts.md,
 * "Replay socket"): pure, so every layout and every hostile shape is tested without sockets.
 *
 * <p>The engine's ROUTER sends {@code [identity, "", topic, seq, payload]} per batch and {@code
 * [identity, "", "", -1, ""]} at the end (vLLM 0.26+, SGLang 0.5.23); ZMQ strips the identity.
 * Accepted, with the seq frame 8 bytes big-endian:
 *
 * <ul>
 *   <li>{@code ["", topic, seq, payload]}: current engines;
 *   <li>{@code ["", seq, payload]}: engines before the topic frame (also read as {@code [topic,
 *       seq, payload]}, what a REQ socket sees of the current layout: both readings agree when the
 *       first frame is empty);
 *   <li>{@code [seq, payload]}: what a REQ socket sees of the older layout.
 * </ul>
 *
 * A seq of -1 with an empty payload ends the answer, whatever the topic frame holds.
 */
sealed interface ReplayAnswer {

  /** Frames read of one message at most: one more than the longest layout, to name the excess. */
  int MAX_FRAMES = 5;

  /**
   * One buffered batch.
   *
   * @param topic the topic frame, or null in a layout without one
   * @param seq the engine's batch sequence, {@code >= 0}
   * @param seqFrame the 8-byte sequence frame as received
   */
  record Batch(byte[] topic, long seq, byte[] seqFrame, byte[] payload) implements ReplayAnswer {}

  /** The end marker: the engine sent everything it buffers from the requested start. */
  record End() implements ReplayAnswer {}

  /**
   * Not a message any engine sends; the rest of that answer is not trusted.
   *
   * @param frames how many frames it had
   */
  record Malformed(Problem problem, int frames) implements ReplayAnswer {}

  /** What is wrong with a malformed answer; {@link #wireName()} goes into logs. */
  enum Problem {
    /** Fewer than 2 or more than 4 frames. */
    FRAME_COUNT,
    /** Four frames whose first (the delimiter) is not empty. */
    NO_DELIMITER,
    /** The sequence frame is not 8 bytes. */
    SEQ_SIZE,
    /** A negative sequence that is not the end marker (seq -1 with an empty payload). */
    NEGATIVE_SEQ,
    /** A sequence not above the previous one of the same answer (engines answer in order). */
    OUT_OF_ORDER;

    String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The end marker, shared: it carries nothing. */
  End END = new End();

  /**
   * Parses one message's frames.
   *
   * @param frames its frames (at most {@link #MAX_FRAMES} of them are looked at)
   */
  static ReplayAnswer parse(List<byte[]> frames) {
    int n = frames.size();
    int seqAt;
    byte[] topic;
    switch (n) {
      case 4 -> {
        if (frames.get(0).length != 0) {
          return new Malformed(Problem.NO_DELIMITER, n);
        }
        topic = frames.get(1);
        seqAt = 2;
      }
      case 3 -> {
        // An empty first frame is the delimiter of the layout without a topic; a non-empty one is
        // the topic of a REQ-side reading of the current layout.
        topic = frames.get(0).length == 0 ? null : frames.get(0);
        seqAt = 1;
      }
      case 2 -> {
        topic = null;
        seqAt = 0;
      }
      default -> {
        return new Malformed(Problem.FRAME_COUNT, n);
      }
    }
    byte[] seqFrame = frames.get(seqAt);
    if (seqFrame.length != 8) {
      return new Malformed(Problem.SEQ_SIZE, n);
    }
    long seq = ReplayClient.seqOf(seqFrame);
    byte[] payload = frames.get(seqAt + 1);
    if (seq < 0) {
      return seq == -1 && payload.length == 0 ? END : new Malformed(Problem.NEGATIVE_SEQ, n);
    }
    return new Batch(topic, seq, seqFrame, payload);
  }
}
