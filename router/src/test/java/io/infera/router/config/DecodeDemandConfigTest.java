package io.infera.router.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.config.DecodeDemandConfig.GuardRelease;
import io.infera.router.config.DecodeDemandConfig.Mode;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code policy.decodeInputDemand}, {@code policy.decodeRequestWeight}, {@code
 * policy.prefillGuardRelease} and their flags / env variables.
 */
class DecodeDemandConfigTest {

  private static final String BASE =
      """
      model: m
      tokenizer: {path: 'builtin:qwen3'}
      discovery: {workers: [{id: w0, url: 'http://127.0.0.1:1'}]}
      """;

  @Test
  void defaultsAreOffWeightZeroReleaseAtDecode() throws Exception {
    DecodeDemandConfig d = ConfigLoader.parse(BASE).decodeDemand();
    assertThat(d).isEqualTo(DecodeDemandConfig.DEFAULTS);
    assertThat(d.mode()).isEqualTo(Mode.OFF);
    assertThat(d.requestWeight()).isZero();
    assertThat(d.prefillGuardRelease()).isEqualTo(GuardRelease.DECODE);
    assertThat(d.books()).isFalse();
  }

  @ParameterizedTest
  @CsvSource({
    "off, OFF",
    "'\"off\"', OFF",
    "shadow, SHADOW",
    "on, ON",
    "'\"on\"', ON",
    "ON, ON",
    "false, OFF",
    "true, ON",
  })
  void modesAreReadIncludingYamlBooleans(String value, Mode mode) throws Exception {
    assertThat(
            ConfigLoader.parse(BASE + "policy: {decodeInputDemand: " + value + "}\n")
                .decodeDemand()
                .mode())
        .isEqualTo(mode);
  }

  @Test
  void allThreeKeysAreRead() throws Exception {
    DecodeDemandConfig d =
        ConfigLoader.parse(
                BASE
                    + "policy: {decodeInputDemand: shadow, decodeRequestWeight: 250.5,"
                    + " prefillGuardRelease: completion}\n")
            .decodeDemand();
    assertThat(d).isEqualTo(new DecodeDemandConfig(Mode.SHADOW, 250.5, GuardRelease.COMPLETION));
    assertThat(d.books()).isTrue();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "decodeInputDemand: maybe | policy.decodeInputDemand: expected off, shadow or on",
        "decodeInputDemand: 3 | policy.decodeInputDemand: expected off, shadow or on",
        "decodeInputDemand: [on] | policy.decodeInputDemand: expected off, shadow or on",
        "name: least-loaded, decodeInputDemand: on | policy.decodeInputDemand: on requires"
            + " policy.name kv-aware, got least-loaded",
        "name: approx-prefix, decodeInputDemand: shadow | requires policy.name kv-aware",
        "decodeRequestWeight: 5 | policy.decodeRequestWeight: 5.0 needs"
            + " policy.decodeInputDemand shadow or on",
        "decodeInputDemand: on, decodeRequestWeight: -1 | policy.decodeRequestWeight: must be a"
            + " finite number >= 0",
        "decodeInputDemand: on, decodeRequestWeight: 2e9 | policy.decodeRequestWeight: expected a"
            + " finite number in [0, 1e9]",
        "decodeInputDemand: on, decodeRequestWeight: x | policy.decodeRequestWeight: expected a"
            + " number",
        "prefillGuardRelease: prefill | policy.prefillGuardRelease: expected decode or completion",
      })
  void badValuesNameTheirKey(String entries, String message) {
    assertThatThrownBy(() -> ConfigLoader.parse(BASE + "policy: {" + entries + "}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(message);
  }

  @Test
  void flagsAndEnvVariablesSetTheKeysFlagOverEnvOverFile() throws Exception {
    java.nio.file.Path file = java.nio.file.Files.createTempFile("rc", ".yaml");
    try {
      java.nio.file.Files.writeString(
          file, BASE + "policy: {decodeInputDemand: shadow, prefillGuardRelease: decode}\n");
      RouterConfig fromEnv =
          ConfigLoader.load(
              file,
              Map.of(
                  "INFERA_DECODE_INPUT_DEMAND", "on",
                  "INFERA_DECODE_REQUEST_WEIGHT", "12",
                  "INFERA_PD_PREFILL_GUARD_RELEASE", "completion"),
              Map.of());
      assertThat(fromEnv.decodeDemand())
          .isEqualTo(new DecodeDemandConfig(Mode.ON, 12, GuardRelease.COMPLETION));
      RouterConfig fromFlags =
          ConfigLoader.load(
              file,
              Map.of("INFERA_DECODE_INPUT_DEMAND", "on"),
              Map.of(
                  "--decode-input-demand", "off",
                  "--pd-prefill-guard-release", "decode"));
      assertThat(fromFlags.decodeDemand()).isEqualTo(DecodeDemandConfig.DEFAULTS);
      assertThat(
              ConfigLoader.load(file, Map.of(), Map.of("--decode-request-weight", "3"))
                  .decodeDemand()
                  .requestWeight())
          .isEqualTo(3.0);
    } finally {
      java.nio.file.Files.deleteIfExists(file);
    }
  }

  @Test
  void theRecordRefusesWhatTheLoaderRefuses() {
    assertThatThrownBy(() -> new DecodeDemandConfig(Mode.OFF, 1, GuardRelease.DECODE))
        .hasMessageContaining("needs policy.decodeInputDemand shadow or on");
    assertThatThrownBy(() -> new DecodeDemandConfig(Mode.ON, Double.NaN, GuardRelease.DECODE))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new DecodeDemandConfig(null, 0, GuardRelease.DECODE))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Mode.parse(" Shadow ")).isEqualTo(Mode.SHADOW);
    assertThat(GuardRelease.parse("COMPLETION").wire()).isEqualTo("completion");
  }
}
