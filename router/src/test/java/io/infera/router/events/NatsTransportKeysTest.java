package io.infera.router.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.kv.EventDecodeException;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.WorkerId;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Snapshot keys, the engine-seq header and the frames the nats transport hands to the sink. */
class NatsTransportKeysTest {

  @Test
  void aSnapshotKeyNamesTheSameSourceAsItsSubject() {
    WorkerId pod = WorkerId.of("vllm-decode-7d9f-x2");
    String key = EventSubjects.snapshotKey(pod, 2);
    assertThat(NatsKeys.parseKey(key)).isEqualTo(new EventSubjects.Source(pod, 2));
    assertThat(EventSubjects.parse("p", "p." + key)).isEqualTo(NatsKeys.parseKey(key));
  }

  @Property
  void everyWorkerAndRankRoundTripsThroughItsKey(
      @ForAll @StringLength(min = 1, max = 60) String worker,
      @ForAll @IntRange(min = 0, max = 1024) int rank) {
    net.jqwik.api.Assume.that(!worker.isBlank());
    WorkerId id = WorkerId.of(worker);
    assertThat(NatsKeys.parseKey(EventSubjects.snapshotKey(id, rank)))
        .isEqualTo(new EventSubjects.Source(id, rank));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "abc", "abc.", ".0", "abc.x", "abc.-1", "a+b.0", "abc.0.1"})
  void malformedKeysAreRejectedNamingTheKey(String key) {
    assertThatThrownBy(() -> NatsKeys.parseKey(key))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("snapshot key '" + key + "'");
  }

  @Test
  void theEngineSeqHeaderIsADecimalOrAbsent() {
    assertThat(NatsKeys.engineSeq(null)).isEqualTo(KvEventMessage.NO_SEQ);
    assertThat(NatsKeys.engineSeq("")).isEqualTo(KvEventMessage.NO_SEQ);
    assertThat(NatsKeys.engineSeq("0")).isZero();
    assertThat(NatsKeys.engineSeq(" 42 ")).isEqualTo(42);
    assertThat(NatsKeys.engineSeq(Long.toString(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"x", "-1", "1.5", "99999999999999999999"})
  void aBadEngineSeqHeaderIsRejected(String header) {
    assertThatThrownBy(() -> NatsKeys.engineSeq(header))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("engine seq header");
  }

  @Test
  void framesCarryTheEngineSeqWhenThereIsOne() throws EventDecodeException {
    byte[] payload = {1, 2, 3};
    List<byte[]> three = NatsKeys.frames(7, payload);
    KvEventMessage m = KvEventMessage.fromFrames(three);
    assertThat(m.seq()).isEqualTo(7);
    assertThat(m.payload()).isEqualTo(payload);
    assertThat(m.topic()).isEmpty();
    KvEventMessage two = KvEventMessage.fromFrames(NatsKeys.frames(KvEventMessage.NO_SEQ, payload));
    assertThat(two.hasSeq()).isFalse();
    assertThat(two.payload()).isEqualTo(payload);
    assertThat(KvEventMessage.fromFrames(NatsKeys.frames(0, null)).payload()).isEmpty();
  }
}
