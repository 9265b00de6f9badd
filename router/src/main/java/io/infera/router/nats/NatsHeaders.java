package io.infera.router.nats;

import io.infera.router.kv.KvEventMessage;

/**
 * The headers the relay puts on stream messages (docs/contracts.md, "NATS event plane"): the only
 * definition of each name, read by the router's consumer and written by the relay.
 */
public final class NatsHeaders {

  /** The engine's batch sequence (decimal), absent when the engine sent none. */
  public static final String ENGINE_SEQ = "Infera-Engine-Seq";

  /** {@code vllm} or {@code sglang}. */
  public static final String ENGINE = "Infera-Engine";

  /** The engine's block size (decimal). */
  public static final String BLOCK_SIZE = "Infera-Block-Size";

  /**
   * Marks a resync marker (the value is a reason, {@link RelayProtocol}): the relay wrote a fresh
   * snapshot of the subject's source and readers should seed it again. The message has an empty
   * payload.
   */
  public static final String RESYNC = "Infera-Resync";

  private NatsHeaders() {}

  /**
   * The {@link #ENGINE_SEQ} value as a sequence, {@link KvEventMessage#NO_SEQ} when absent.
   *
   * @throws IllegalArgumentException when present but not a decimal {@code long >= 0}
   */
  public static long engineSeq(String header) {
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
}
