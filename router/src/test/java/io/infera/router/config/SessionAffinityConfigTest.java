package io.infera.router.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code policy.sessionAffinity.*}: defaults, YAML spellings, flags and env, bad values named. */
class SessionAffinityConfigTest {

  private static final String MINIMAL =
      "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
          + "discovery: {workers: [{id: w0, url: 'http://127.0.0.1:1'}]}\n";

  private static SessionAffinityConfig parse(String sessionAffinity) throws ConfigException {
    return ConfigLoader.parse(MINIMAL + "policy:\n  sessionAffinity: " + sessionAffinity + "\n")
        .sessionAffinity();
  }

  @Test
  void defaultsAreOffWithTheXSessionIdHeader() throws Exception {
    SessionAffinityConfig c = ConfigLoader.parse(MINIMAL).sessionAffinity();
    assertThat(c).isEqualTo(SessionAffinityConfig.DEFAULTS);
    assertThat(c.enabled()).isFalse();
    assertThat(c.header()).isEqualTo("x-session-id");
    assertThat(c.maxSessions()).isEqualTo(100_000);
    assertThat(c.ttlMs()).isEqualTo(1_800_000);
    assertThat(c.maxKeyBytes()).isEqualTo(256);
  }

  @ParameterizedTest
  @CsvSource({"off,OFF", "'\"off\"',OFF", "false,OFF", "prefill,PREFILL", "BOTH,BOTH", "both,BOTH"})
  void modesParseIncludingYamlsBooleanOff(String yaml, SessionAffinityConfig.Mode mode)
      throws Exception {
    assertThat(parse("{mode: " + yaml + "}").mode()).isEqualTo(mode);
  }

  @Test
  void everySettingIsRead() throws Exception {
    SessionAffinityConfig c =
        parse("{mode: both, header: X-Conversation, maxSessions: 5, ttlMs: 2000, maxKeyBytes: 64}");
    assertThat(c)
        .isEqualTo(
            new SessionAffinityConfig(
                SessionAffinityConfig.Mode.BOTH, "x-conversation", 5, 2000, 64));
    assertThat(parse("{mode: prefill, header: ''}").header()).isNull();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{mode: sometimes}|policy.sessionAffinity.mode",
        "{mode: true}|policy.sessionAffinity.mode",
        "{mode: [both]}|policy.sessionAffinity.mode",
        "{header: 'x session'}|policy.sessionAffinity.header",
        "{header: 'x:y'}|policy.sessionAffinity.header",
        "{maxSessions: 0}|policy.sessionAffinity.maxSessions",
        "{maxSessions: 10000001}|policy.sessionAffinity.maxSessions",
        "{ttlMs: 999}|policy.sessionAffinity.ttlMs",
        "{ttlMs: 604800001}|policy.sessionAffinity.ttlMs",
        "{maxKeyBytes: 0}|policy.sessionAffinity.maxKeyBytes",
        "{maxKeyBytes: 4097}|policy.sessionAffinity.maxKeyBytes",
        "{modes: both}|modes"
      })
  void badValuesAreRefusedNamingTheKey(String yaml, String key) {
    assertThatThrownBy(() -> parse(yaml))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(key);
  }

  @Test
  void theLimitsHoldAtTheirBounds() throws Exception {
    assertThat(parse("{maxSessions: 10000000, ttlMs: 604800000, maxKeyBytes: 4096}").maxSessions())
        .isEqualTo(10_000_000);
    assertThat(parse("{maxSessions: 1, ttlMs: 1000, maxKeyBytes: 1}").ttlMs()).isEqualTo(1000);
  }

  @Test
  void theFlagBeatsTheEnvBeatsTheFile() throws Exception {
    java.nio.file.Path file = java.nio.file.Files.createTempFile("sa", ".yaml");
    try {
      java.nio.file.Files.writeString(
          file, MINIMAL + "policy: {sessionAffinity: {mode: prefill, header: x-a}}\n");
      assertThat(ConfigLoader.load(file, Map.of(), Map.of()).sessionAffinity().mode())
          .isEqualTo(SessionAffinityConfig.Mode.PREFILL);
      Map<String, String> env =
          Map.of("INFERA_SESSION_AFFINITY", "both", "INFERA_SESSION_AFFINITY_HEADER", "x-b");
      SessionAffinityConfig fromEnv = ConfigLoader.load(file, env, Map.of()).sessionAffinity();
      assertThat(fromEnv.mode()).isEqualTo(SessionAffinityConfig.Mode.BOTH);
      assertThat(fromEnv.header()).isEqualTo("x-b");
      SessionAffinityConfig fromFlag =
          ConfigLoader.load(
                  file,
                  env,
                  Map.of("--session-affinity", "off", "--session-affinity-header", "x-c"))
              .sessionAffinity();
      assertThat(fromFlag.mode()).isEqualTo(SessionAffinityConfig.Mode.OFF);
      assertThat(fromFlag.header()).isEqualTo("x-c");
    } finally {
      java.nio.file.Files.delete(file);
    }
  }
}
