package io.infera.router.events.nats;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.EventDecodeException;
import io.infera.router.kv.KvEventMessage;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The frames the nats transport hands to the sink. */
class NatsFramesTest {

  @Test
  void framesCarryTheEngineSeqWhenThereIsOne() throws EventDecodeException {
    byte[] payload = {1, 2, 3};
    List<byte[]> three = NatsFrames.frames(7, payload);
    KvEventMessage m = KvEventMessage.fromFrames(three);
    assertThat(m.seq()).isEqualTo(7);
    assertThat(m.payload()).isEqualTo(payload);
    assertThat(m.topic()).isEmpty();
    KvEventMessage two =
        KvEventMessage.fromFrames(NatsFrames.frames(KvEventMessage.NO_SEQ, payload));
    assertThat(two.hasSeq()).isFalse();
    assertThat(two.payload()).isEqualTo(payload);
    assertThat(KvEventMessage.fromFrames(NatsFrames.frames(0, null)).payload()).isEmpty();
  }
}
