package io.infera.router.events.nats;

import io.infera.router.kv.KvEventMessage;
import java.util.List;

/** The ZMQ-shaped frames the {@code nats} transport hands to the sink for a stream message. */
final class NatsFrames {

  private static final byte[] NO_TOPIC = new byte[0];

  private NatsFrames() {}

  /**
   * {@code ["", seq, payload]} with the engine sequence, {@code ["", payload]} without (a null
   * payload is empty).
   */
  static List<byte[]> frames(long engineSeq, byte[] payload) {
    byte[] body = payload == null ? NO_TOPIC : payload;
    return engineSeq == KvEventMessage.NO_SEQ
        ? List.of(NO_TOPIC, body)
        : List.of(NO_TOPIC, KvEventMessage.seqBytes(engineSeq), body);
  }
}
