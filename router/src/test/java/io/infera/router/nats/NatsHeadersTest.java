package io.infera.router.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.kv.KvEventMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The engine-seq header. */
class NatsHeadersTest {

  @Test
  void theEngineSeqHeaderIsADecimalOrAbsent() {
    assertThat(NatsHeaders.engineSeq(null)).isEqualTo(KvEventMessage.NO_SEQ);
    assertThat(NatsHeaders.engineSeq("")).isEqualTo(KvEventMessage.NO_SEQ);
    assertThat(NatsHeaders.engineSeq("0")).isZero();
    assertThat(NatsHeaders.engineSeq(" 42 ")).isEqualTo(42);
    assertThat(NatsHeaders.engineSeq(Long.toString(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"x", "-1", "1.5", "99999999999999999999"})
  void aBadEngineSeqHeaderIsRejected(String header) {
    assertThatThrownBy(() -> NatsHeaders.engineSeq(header))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("engine seq header");
  }
}
