package io.infera.router.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.WorkerId;
import io.infera.router.nats.NatsHeaders;
import io.infera.router.nats.RelayProtocol;
import io.infera.router.relay.StreamClient.Outbound;
import io.infera.router.relay.StreamClient.Stored;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RelayMessagesTest {

  private static final WorkerId W = WorkerId.of("engine-0");
  private static final RelayOptions OPTIONS =
      RelayOptions.builder("tcp://127.0.0.1:1", "nats://127.0.0.1:1", W)
          .blockSize(32)
          .dpSize(2)
          .build();
  private final RelayMessages messages = new RelayMessages(OPTIONS, "run1");

  @Test
  void aSequencedBatchCarriesItsSequenceAndAStableId() {
    byte[] payload = {1, 2, 3};
    RelayBatch b = new RelayBatch(1, 42, payload, RelayProtocol.payloadHash(payload), 0, 9);
    Outbound m = messages.batch(b);
    assertThat(m.subject()).isEqualTo(OPTIONS.subject(1));
    assertThat(m.headers())
        .containsExactly(
            Map.entry(NatsHeaders.ENGINE_SEQ, "42"),
            Map.entry(NatsHeaders.ENGINE, "vllm"),
            Map.entry(NatsHeaders.BLOCK_SIZE, "32"));
    assertThat(m.messageId())
        .isEqualTo(RelayProtocol.batchMessageId(W, 1, 42, RelayProtocol.payloadHash(payload)));
    assertThat(m.payload()).isSameAs(payload);
  }

  @Test
  void anUnsequencedBatchHasNoSequenceHeaderAndARunUniqueId() {
    RelayBatch b = new RelayBatch(0, KvEventMessage.NO_SEQ, new byte[] {7}, 5, 0, 9);
    Outbound m = messages.batch(b);
    assertThat(m.headers()).doesNotContainKey(NatsHeaders.ENGINE_SEQ);
    assertThat(m.messageId()).isEqualTo(RelayProtocol.unsequencedMessageId(W, 0, "run1", 9));
  }

  @Test
  void aMarkerIsEmptyWithItsReason() {
    Outbound m = messages.marker(1, RelayProtocol.REASON_OVERFLOW, 3, 77);
    assertThat(m.payload()).isEmpty();
    assertThat(m.headers()).containsEntry(NatsHeaders.RESYNC, "overflow");
    assertThat(m.messageId()).isEqualTo(RelayProtocol.resyncMessageId(W, 1, "run1", 3, 77));
    assertThat(RelayMessages.isMarker(new Stored(5, m.headers(), m.payload()))).isTrue();
    assertThat(RelayMessages.isMarker(new Stored(5, Map.of(), new byte[0]))).isFalse();
  }

  @ParameterizedTest(name = "header ''{0}'' → {1}")
  @CsvSource(
      nullValues = "none",
      value = {"7, 7", "' 8 ', 8", "none, -1", "x, -1", "-3, -1"})
  void aStoredBatchsSequenceReadsBackLeniently(String header, long expected) {
    Map<String, String> h = header == null ? Map.of() : Map.of(NatsHeaders.ENGINE_SEQ, header);
    long seq = RelayMessages.engineSeq(new Stored(1, h, new byte[0]));
    assertThat(seq).isEqualTo(expected < 0 ? KvEventMessage.NO_SEQ : expected);
  }
}
