package io.infera.router.relay;

import io.infera.router.kv.KvEventMessage;
import io.infera.router.nats.NatsHeaders;
import io.infera.router.nats.RelayProtocol;
import io.infera.router.relay.StreamClient.Outbound;
import io.infera.router.relay.StreamClient.Stored;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The relay's messages on the stream as {@link RelayProtocol} defines them: batches and resync
 * markers with their headers and {@code Nats-Msg-Id}, and how stored ones read back.
 */
final class RelayMessages {

  private final RelayOptions options;
  private final String runId;
  private final String blockSizeHeader;
  private final String[] subjects;

  /**
   * @param runId identifies this relay run (unsequenced batches' and markers' ids)
   */
  RelayMessages(RelayOptions options, String runId) {
    this.options = options;
    this.runId = runId;
    this.blockSizeHeader = Integer.toString(options.blockSize());
    this.subjects = new String[options.dpSize()];
    for (int r = 0; r < subjects.length; r++) {
      subjects[r] = options.subject(r);
    }
  }

  /** A batch on its rank's subject. */
  Outbound batch(RelayBatch b) {
    Map<String, String> h = new LinkedHashMap<>(4);
    if (b.hasSeq()) {
      h.put(NatsHeaders.ENGINE_SEQ, Long.toString(b.engineSeq()));
    }
    h.put(NatsHeaders.ENGINE, options.engine());
    h.put(NatsHeaders.BLOCK_SIZE, blockSizeHeader);
    String id =
        b.hasSeq()
            ? RelayProtocol.batchMessageId(
                options.workerId(), b.rank(), b.engineSeq(), b.payloadHash())
            : RelayProtocol.unsequencedMessageId(options.workerId(), b.rank(), runId, b.ordinal());
    return new Outbound(subjects[b.rank()], h, b.payload(), id);
  }

  /** A resync marker of {@code rank}: episode {@code episode}, snapshot watermark {@code w}. */
  Outbound marker(int rank, String reason, long episode, long watermark) {
    Map<String, String> h = new LinkedHashMap<>(4);
    h.put(NatsHeaders.RESYNC, reason);
    h.put(NatsHeaders.ENGINE, options.engine());
    h.put(NatsHeaders.BLOCK_SIZE, blockSizeHeader);
    String id = RelayProtocol.resyncMessageId(options.workerId(), rank, runId, episode, watermark);
    return new Outbound(subjects[rank], h, new byte[0], id);
  }

  /** Whether a stored message is a resync marker. */
  static boolean isMarker(Stored m) {
    return RelayProtocol.isResync(m.headers().get(NatsHeaders.RESYNC));
  }

  /** The engine sequence header of a stored batch, or NO_SEQ (also when it is not a number). */
  static long engineSeq(Stored m) {
    try {
      return NatsHeaders.engineSeq(m.headers().get(NatsHeaders.ENGINE_SEQ));
    } catch (IllegalArgumentException e) {
      return KvEventMessage.NO_SEQ;
    }
  }
}
