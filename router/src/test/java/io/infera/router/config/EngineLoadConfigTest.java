package io.infera.router.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code policy.engineLoad.*} and the per-pool / per-worker {@code engineLoad} switches. */
class EngineLoadConfigTest {

  private static final String BASE =
      """
      model: m
      tokenizer: {path: 'builtin:qwen3'}
      discovery:
        workers:
          - {id: w0, url: 'http://127.0.0.1:1'}
          - {id: w1, url: 'http://127.0.0.1:2', engineLoad: false}
        pools:
          - {name: a}
          - {name: b, engineLoad: false}
      """;

  @Test
  void defaultsAreOffWithTheDocumentedValues() throws Exception {
    EngineLoadConfig e =
        ConfigLoader.parse(
                "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
                    + "discovery: {workers: [{id: w0, url: 'http://127.0.0.1:1'}]}\n")
            .engineLoad();
    assertThat(e).isEqualTo(EngineLoadConfig.DEFAULTS);
    assertThat(e.enabled()).isFalse();
    assertThat(e.scrapes("w0", "static")).isFalse();
  }

  @Test
  void keysAndOptOutsAreRead() throws Exception {
    EngineLoadConfig e =
        ConfigLoader.parse(
                BASE
                    + "policy: {engineLoad: {enabled: true, intervalMs: 250, timeoutMs: 300,"
                    + " maxStalenessMs: 250, weight: 0.5, maxBodyBytes: 1024}}\n")
            .engineLoad();
    assertThat(e)
        .isEqualTo(
            new EngineLoadConfig(
                true, 250, 300, 250, 0.5, 1024, java.util.Set.of("w1"), java.util.Set.of("b")));
    assertThat(e.scrapes("w0", "static")).isTrue();
    assertThat(e.scrapes("w1", "static")).isFalse();
    assertThat(e.scrapes("x", "a")).isTrue();
    assertThat(e.scrapes("x", "b")).isFalse();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "intervalMs: 9 | policy.engineLoad.intervalMs: 9 is outside",
        "intervalMs: 3600001 | policy.engineLoad.intervalMs",
        "timeoutMs: 9 | policy.engineLoad.timeoutMs: 9 is outside",
        "timeoutMs: 600001 | policy.engineLoad.timeoutMs",
        "maxStalenessMs: 400 | policy.engineLoad.maxStalenessMs: 400 is below",
        "weight: 1000.5 | policy.engineLoad.weight",
        "weight: -1 | policy.engineLoad.weight",
        "weight: x | policy.engineLoad.weight",
        "maxBodyBytes: 1023 | policy.engineLoad.maxBodyBytes: 1023 is outside",
        "maxBodyBytes: 67108865 | policy.engineLoad.maxBodyBytes",
        "enabled: maybe | policy.engineLoad.enabled",
        "everyMs: 3 | policy.engineLoad.everyMs"
      })
  void badValuesNameTheirKey(String entry, String message) {
    assertThatThrownBy(() -> ConfigLoader.parse(BASE + "policy: {engineLoad: {" + entry + "}}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(message);
  }

  @Test
  void limitsAreAccepted() throws Exception {
    EngineLoadConfig e =
        ConfigLoader.parse(
                BASE
                    + "policy: {engineLoad: {intervalMs: 10, timeoutMs: 10, maxStalenessMs: 10,"
                    + " weight: 1000, maxBodyBytes: 67108864}}\n")
            .engineLoad();
    assertThat(e.maxBodyBytes()).isEqualTo(64L << 20);
    assertThat(e.weight()).isEqualTo(1000.0);
  }

  @Test
  void aBadSwitchNamesItsWorker() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
                        + "discovery: {workers: [{id: w0, url: 'http://h:1', engineLoad: 3}]}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("discovery.workers[0].engineLoad");
  }
}
