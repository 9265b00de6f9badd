package io.infera.router.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code tokenizer.parity.*}. */
class ParityConfigTest {

  private static RouterConfig parse(String parity) throws Exception {
    return ConfigLoader.parse(
        "model: m\ntokenizer: {path: 'builtin:qwen3'"
            + (parity == null ? "" : ", parity: " + parity)
            + "}\ndiscovery: {workers: [{id: w0, url: 'http://127.0.0.1:1'}]}\n");
  }

  @Test
  void defaultsProbeEveryTenMinutes() throws Exception {
    ParityConfig p = parse(null).tokenizer().parity();
    assertThat(p).isEqualTo(ParityConfig.DEFAULTS);
    assertThat(p.enabled()).isTrue();
    assertThat(p.intervalMs()).isEqualTo(600_000);
    assertThat(p.timeoutMs()).isEqualTo(5_000);
    assertThat(p.maxAnswerBytes()).isEqualTo(1 << 20);
  }

  @Test
  void keysAreRead() throws Exception {
    ParityConfig p =
        parse("{enabled: false, intervalMs: 1000, timeoutMs: 10, maxAnswerBytes: 67108864}")
            .tokenizer()
            .parity();
    assertThat(p).isEqualTo(new ParityConfig(false, 1000, 10, 64L << 20));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          {intervalMs: 999}               | tokenizer.parity.intervalMs
          {intervalMs: 86400001}          | tokenizer.parity.intervalMs
          {timeoutMs: 9}                  | tokenizer.parity.timeoutMs
          {timeoutMs: 600001}             | tokenizer.parity.timeoutMs
          {maxAnswerBytes: 1023}          | tokenizer.parity.maxAnswerBytes
          {maxAnswerBytes: 67108865}      | tokenizer.parity.maxAnswerBytes
          {intervalMs: soon}              | tokenizer.parity.intervalMs
          {enabled: maybe}                | tokenizer.parity.enabled
          {every: 5}                      | tokenizer.parity.every
          """)
  void badValuesNameTheKey(String parity, String key) {
    assertThatThrownBy(() -> parse(parity))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(key);
  }

  @Test
  void theRecordRefusesNonPositiveBounds() {
    assertThatThrownBy(() -> new ParityConfig(true, 0, 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
