package io.infera.router.kv;

import io.infera.router.kv.EventDecodeException.Kind;
import java.util.List;

/**
 * One ZMQ message from an engine's KV-event publisher, split into its frames.
 *
 * <p>Current engines send three frames {@code [topic, seq (8 bytes, big-endian), payload]}; older
 * ones two {@code [topic, payload]}, which carry no sequence ({@link #NO_SEQ}); ATOM sends {@code
 * [topic, payload]} with a topic and the payload alone without one (no sequence either). A replay
 * socket ends its answer with seq {@code -1} and an empty payload ({@link #isReplayEnd()}).
 *
 * @param topic the topic frame (may be empty)
 * @param seq the engine's batch sequence number, or {@link #NO_SEQ}
 * @param payload the msgpack batch (see {@link KvEventDecoder})
 */
public record KvEventMessage(byte[] topic, long seq, byte[] payload) {

  /** The sequence of a two-frame message, which has none. */
  public static final long NO_SEQ = Long.MIN_VALUE;

  /** Splits a received multipart message; the payload is always the last frame. */
  public static KvEventMessage fromFrames(List<byte[]> frames) throws EventDecodeException {
    if (frames == null || frames.isEmpty()) {
      throw new EventDecodeException(Kind.EMPTY, "message has no frames");
    }
    return switch (frames.size()) {
      case 1 -> new KvEventMessage(new byte[0], NO_SEQ, frames.get(0));
      case 2 -> new KvEventMessage(frames.get(0), NO_SEQ, frames.get(1));
      case 3 -> new KvEventMessage(frames.get(0), seqFrame(frames.get(1)), frames.get(2));
      default ->
          throw new EventDecodeException(
              Kind.INVALID,
              "message has "
                  + frames.size()
                  + " frames, expected [topic, seq, payload], [topic, payload] or [payload]");
    };
  }

  /** Decodes an 8-byte big-endian signed sequence frame. */
  public static long seqFrame(byte[] frame) throws EventDecodeException {
    if (frame == null || frame.length != 8) {
      throw new EventDecodeException(
          Kind.INVALID,
          "seq frame has " + (frame == null ? 0 : frame.length) + " bytes, expected 8");
    }
    long v = 0;
    for (byte b : frame) {
      v = (v << 8) | (b & 0xff);
    }
    return v;
  }

  /** Encodes a sequence number as the 8-byte big-endian frame engines send. */
  public static byte[] seqBytes(long seq) {
    byte[] out = new byte[8];
    for (int i = 7; i >= 0; i--) {
      out[i] = (byte) seq;
      seq >>>= 8;
    }
    return out;
  }

  public boolean hasSeq() {
    return seq != NO_SEQ;
  }

  /** True for the replay socket's end-of-replay sentinel (seq -1, empty payload). */
  public boolean isReplayEnd() {
    return seq == -1 && payload.length == 0;
  }
}
