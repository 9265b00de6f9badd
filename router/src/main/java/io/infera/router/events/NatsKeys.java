package io.infera.router.events;

import io.infera.router.kv.KvEventMessage;
import java.util.List;

/**
 * What the {@code nats} transport reads off the wire besides payloads: snapshot keys, the engine
 * sequence header and the frames it hands to the sink.
 */
final class NatsKeys {

  private static final byte[] NO_TOPIC = new byte[0];
  // Any one-token prefix: a key is an event subject without its prefix.
  private static final String KEY_PREFIX = "k";

  private NatsKeys() {}

  /**
   * The source of a snapshot key {@code <token>.<rank>} (see {@link EventSubjects#snapshotKey}).
   *
   * @throws IllegalArgumentException naming what is wrong with the key
   */
  static EventSubjects.Source parseKey(String key) {
    try {
      return EventSubjects.parse(KEY_PREFIX, KEY_PREFIX + "." + key);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "snapshot key '" + key + "' is not <worker token>.<rank>", e);
    }
  }

  /**
   * The {@link EventSubjects#HEADER_ENGINE_SEQ} value as a sequence, {@link KvEventMessage#NO_SEQ}
   * when absent.
   *
   * @throws IllegalArgumentException when present but not a decimal {@code long >= 0}
   */
  static long engineSeq(String header) {
    if (header == null || header.isEmpty()) {
      return KvEventMessage.NO_SEQ;
    }
    long seq;
    try {
      seq = Long.parseLong(header.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("engine seq header '" + header + "' is not a number", e);
    }
    if (seq < 0) {
      throw new IllegalArgumentException("engine seq header " + seq + " is negative");
    }
    return seq;
  }

  /**
   * The ZMQ-shaped frames of a stream message: {@code ["", seq, payload]} with the engine sequence,
   * {@code ["", payload]} without.
   */
  static List<byte[]> frames(long engineSeq, byte[] payload) {
    byte[] body = payload == null ? NO_TOPIC : payload;
    return engineSeq == KvEventMessage.NO_SEQ
        ? List.of(NO_TOPIC, body)
        : List.of(NO_TOPIC, KvEventMessage.seqBytes(engineSeq), body);
  }
}
