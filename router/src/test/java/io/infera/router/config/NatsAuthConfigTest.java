package io.infera.router.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.nats.NatsAuth;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code events.nats.auth.*} and {@code events.nats.tls.*}. */
class NatsAuthConfigTest {

  private static RouterConfig.Nats nats(String block) throws ConfigException {
    return ConfigLoader.parse(
            "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
                + "discovery: {workers: [{id: w, url: 'http://127.0.0.1:1'}]}\n"
                + "events:\n  transport: nats\n  nats:\n"
                + block)
        .events()
        .nats();
  }

  @Test
  void unsetIsAnonymous() throws Exception {
    assertThat(nats("    url: nats://n:4222\n").auth()).isEqualTo(NatsAuth.NONE);
  }

  @Test
  void pathsAreReadNotTheFiles() throws Exception {
    RouterConfig.Nats n =
        nats(
            "    auth: {user: router, passwordFile: /etc/infera-nats/auth/password}\n"
                + "    tls: {caFile: /ca.crt, certFile: /tls.crt, keyFile: /tls.key}\n");
    assertThat(n.auth().user()).isEqualTo("router");
    assertThat(n.auth().passwordFile()).isEqualTo(Path.of("/etc/infera-nats/auth/password"));
    assertThat(n.auth().tlsCaFile()).isEqualTo(Path.of("/ca.crt"));
    assertThat(n.auth().describe()).isEqualTo("user=router tls=ca+cert");
    assertThat(nats("    auth: {credsFile: /x.creds}\n").auth().credsFile())
        .isEqualTo(Path.of("/x.creds"));
  }

  @Test
  void theEnvironmentSetsThemAsTheRelaysVariablesDo() throws Exception {
    java.nio.file.Path file = java.nio.file.Files.createTempFile("router", ".yaml");
    try {
      java.nio.file.Files.writeString(
          file,
          "model: m\ntokenizer: {path: 'builtin:qwen3'}\nevents: {transport: nats}\n"
              + "discovery: {workers: [{id: w, url: 'http://127.0.0.1:1'}]}\n");
      RouterConfig c =
          ConfigLoader.load(
              file,
              java.util.Map.of(
                  "INFERA_NATS_USER", "router",
                  "INFERA_NATS_PASSWORD_FILE", "/p",
                  "INFERA_NATS_TLS_CA", "/ca"),
              java.util.Map.of());
      assertThat(c.events().nats().auth().describe()).isEqualTo("user=router tls=ca");
      assertThat(c.events().nats().auth().passwordFile()).isEqualTo(Path.of("/p"));
    } finally {
      java.nio.file.Files.delete(file);
    }
  }

  @Test
  void theAdminTokenFileComesFromItsVariableAndAnEmptyOneIsIgnored() throws Exception {
    java.nio.file.Path file = java.nio.file.Files.createTempFile("router", ".yaml");
    try {
      java.nio.file.Files.writeString(
          file,
          "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
              + "discovery: {workers: [{id: w, url: 'http://127.0.0.1:1'}]}\n");
      RouterConfig c =
          ConfigLoader.load(
              file,
              java.util.Map.of("INFERA_ADMIN_TOKEN_FILE", "/var/run/secrets/infera/admin/token"),
              java.util.Map.of());
      assertThat(c.admin().tokenFile()).isEqualTo("/var/run/secrets/infera/admin/token");
      RouterConfig none =
          ConfigLoader.load(
              file, java.util.Map.of("INFERA_ADMIN_TOKEN_FILE", " "), java.util.Map.of());
      assertThat(none.admin().tokenFile()).isNull();
    } finally {
      java.nio.file.Files.delete(file);
    }
  }

  @Test
  void incompleteOrUnknownSettingsNameTheKey() {
    assertThatThrownBy(() -> nats("    auth: {user: router}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("events.nats.auth")
        .hasMessageContaining("password file");
    assertThatThrownBy(() -> nats("    tls: {certFile: /c}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("events.nats.auth/tls");
    assertThatThrownBy(() -> nats("    auth: {token: x}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("events.nats.auth.token");
    assertThatThrownBy(() -> nats("    auth: [1]\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("events.nats.auth");
    assertThatThrownBy(() -> nats("    auth: {user: u, passwordFile: \"a\\u0000b\"}\n"))
        .isInstanceOf(ConfigException.class);
  }
}
