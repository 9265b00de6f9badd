package io.infera.router.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code policy.overlapWeightMode} and {@code policy.tuner.*}. */
class OverlapWeightConfigTest {

  private static final String MINIMAL =
      "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
          + "discovery: {workers: [{id: w0, url: 'http://127.0.0.1:9001'}]}\n";

  private static PolicyConfig policy(String policyYaml) throws ConfigException {
    return ConfigLoader.parse(MINIMAL + "policy: " + policyYaml + "\n").policy();
  }

  @Test
  void theDefaultIsTheTunedWeight() throws Exception {
    PolicyConfig p = ConfigLoader.parse(MINIMAL).policy();
    assertThat(p.weightMode()).isEqualTo(OverlapWeightMode.AUTO);
    assertThat(p.tunes()).isTrue();
    assertThat(p.tuner()).isEqualTo(TunerConfig.defaults());
  }

  @Test
  void aWeightTheUserSetsHolds() throws Exception {
    assertThat(policy("{overlapWeight: 4}").weightMode()).isEqualTo(OverlapWeightMode.FIXED);
    assertThat(policy("{overlapWeight: 1.0}").weightMode()).isEqualTo(OverlapWeightMode.FIXED);
    assertThat(policy("{prefillOverlapWeight: 20}").weightMode())
        .isEqualTo(OverlapWeightMode.FIXED);
    assertThat(policy("{decodeOverlapWeight: 2}").tunes()).isFalse();
    assertThat(policy("{overlapWeightMode: fixed}").overlapWeight()).isEqualTo(1.0);
    assertThat(policy("{overlapWeightMode: FIXED}").tunes()).isFalse();
    assertThat(policy("{overlapWeightMode: auto}").tunes()).isTrue();
  }

  @Test
  void theFlagMeansFixedToo(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("router.yaml");
    Files.writeString(file, MINIMAL);
    assertThat(ConfigLoader.load(file, Map.of(), Map.of()).policy().tunes()).isTrue();
    PolicyConfig p = ConfigLoader.load(file, Map.of(), Map.of("--kv-overlap-weight", "8")).policy();
    assertThat(p.weightMode()).isEqualTo(OverlapWeightMode.FIXED);
    assertThat(p.overlapWeight()).isEqualTo(8.0);
  }

  @Test
  void autoWithAWeightIsRefusedNamingTheKey() {
    assertThatThrownBy(() -> policy("{overlapWeightMode: auto, overlapWeight: 4}"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("policy.overlapWeightMode: auto")
        .hasMessageContaining("policy.tuner.initialWeight");
    assertThatThrownBy(() -> policy("{overlapWeightMode: auto, decodeOverlapWeight: 4}"))
        .hasMessageStartingWith("policy.overlapWeightMode");
  }

  @Test
  void anUnknownModeIsRefusedNamingTheKey() {
    assertThatThrownBy(() -> policy("{overlapWeightMode: sometimes}"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("policy.overlapWeightMode: expected auto or fixed");
  }

  @Test
  void tunerSettingsAreRead() throws Exception {
    TunerConfig t =
        policy("{tuner: {minWeight: 0.5, maxWeight: 8, initialWeight: 2, epochRequests: 64}}")
            .tuner();
    assertThat(t).isEqualTo(new TunerConfig(0.5, 8, 2, 64));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{minWeight: 0}                          | policy.tuner.minWeight must be > 0",
        "{minWeight: 2, maxWeight: 1, initialWeight: 1} | policy.tuner.maxWeight must be >= tuner.minWeight",
        "{maxWeight: 2000000}                    | policy.tuner.maxWeight",
        "{initialWeight: 64}                     | policy.tuner.initialWeight must be within",
        "{initialWeight: 0.1}                    | policy.tuner.initialWeight must be within",
        "{epochRequests: 3}                      | policy.tuner.epochRequests: 3 is outside [4, 100000]",
        "{epochRequests: 100001}                 | policy.tuner.epochRequests: 100001 is outside",
        "{minWeight: -1}                         | policy.tuner.minWeight: must be a finite number >= 0",
        "{minWeight: many}                       | policy.tuner.minWeight: expected a number",
        "{stepFactor: 2}                         | policy.tuner.stepFactor: unknown key",
      })
  void badTunerSettingsAreRefusedNamingTheKey(String tuner, String message) {
    assertThatThrownBy(() -> policy("{tuner: " + tuner.strip() + "}"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(message.strip());
  }

  @Test
  void epochRequestsAtItsLimits() throws Exception {
    assertThat(policy("{tuner: {epochRequests: 4}}").tuner().epochRequests()).isEqualTo(4);
    assertThat(policy("{tuner: {epochRequests: 100000}}").tuner().epochRequests())
        .isEqualTo(100_000);
    assertThat(policy("{tuner: {maxWeight: 1000000}}").tuner().maxWeight()).isEqualTo(1e6);
  }
}
