package io.infera.router.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The HTTP server limits under {@code limits} and the {@code admin} block. */
class ServerConfigTest {

  private static final String BASE =
      "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
          + "discovery: {workers: [{id: w0, url: 'http://127.0.0.1:1'}]}\n";

  @Test
  void defaults() throws Exception {
    RouterConfig c = ConfigLoader.parse(BASE);
    assertThat(c.server()).isEqualTo(RouterConfig.ServerLimits.DEFAULTS);
    assertThat(c.admin()).isEqualTo(new RouterConfig.Admin("0.0.0.0", 8081, null, true, true));
    // An ephemeral public port gets an ephemeral admin port (tests never collide on 8081).
    RouterConfig any = ConfigLoader.parse(BASE + "listen: {host: 127.0.0.1, port: 0}\n");
    assertThat(any.admin().port()).isZero();
    assertThat(any.admin().host()).isEqualTo("127.0.0.1");
  }

  @Test
  void everyKeyIsRead() throws Exception {
    RouterConfig c =
        ConfigLoader.parse(
            BASE
                + "limits: {idleTimeoutMs: 1000, headerTimeoutMs: 200, bodyTimeoutMs: 300,"
                + " maxConnections: 7, maxInFlight: 3}\n"
                + "admin: {host: 10.0.0.1, port: 9090, tokenFile: /t, explain: false,"
                + " cacheHitHeader: false}\n");
    assertThat(c.server()).isEqualTo(new RouterConfig.ServerLimits(1000, 200, 300, 7, 3));
    assertThat(c.admin()).isEqualTo(new RouterConfig.Admin("10.0.0.1", 9090, "/t", false, false));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "limits: {maxConnections: 1}|",
        "limits: {maxConnections: 0}|limits.maxConnections",
        "limits: {maxInFlight: 1000000}|",
        "limits: {maxInFlight: 1000001}|limits.maxInFlight",
        "limits: {headerTimeoutMs: 100}|",
        "limits: {headerTimeoutMs: 99}|limits.headerTimeoutMs",
        "limits: {idleTimeoutMs: 3600000}|",
        "limits: {idleTimeoutMs: 3600001}|limits.idleTimeoutMs",
        "limits: {bodyTimeoutMs: -1}|limits.bodyTimeoutMs",
        "admin: {port: 65535}|",
        "admin: {port: 65536}|admin.port",
        "admin: {port: 8000}|admin.port",
        "admin: {tokenFile: ''}|admin.tokenFile",
        "admin: {explain: maybe}|admin.explain",
        "admin: {tls: true}|admin.tls"
      })
  void limitsAtAndPastTheirBounds(String yaml, String badKey) {
    if (badKey == null) {
      org.assertj.core.api.Assertions.assertThatCode(() -> ConfigLoader.parse(BASE + yaml + "\n"))
          .doesNotThrowAnyException();
    } else {
      assertThatThrownBy(() -> ConfigLoader.parse(BASE + yaml + "\n"))
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith(badKey);
    }
  }

  @Test
  void theAdminPortFlagAndEnvSetIt(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("c.yaml"), BASE);
    var env = java.util.Map.of("INFERA_ADMIN_PORT", "9191");
    assertThat(ConfigLoader.load(file, env, java.util.Map.of()).admin().port()).isEqualTo(9191);
    assertThat(
            ConfigLoader.load(file, env, java.util.Map.of("--admin-port", "9292")).admin().port())
        .isEqualTo(9292);
  }
}
