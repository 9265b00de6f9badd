package io.infera.router.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.relay.RelayOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

class RelayCommandTest {

  private static Map<String, String> map(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  void flagBeatsEnvBeatsDefault() {
    RelayOptions o =
        RelayCommand.options(
            map("--block-size", "32", "--worker-id", "flag-pod"),
            map(
                "INFERA_BLOCK_SIZE", "64",
                "INFERA_DP_SIZE", "2",
                "INFERA_SNAPSHOT_EVERY", "250ms",
                "INFERA_REPLAY", "tcp://127.0.0.1:5558",
                "POD_NAME", "env-pod"));
    assertThat(o.blockSize()).isEqualTo(32);
    assertThat(o.dpSize()).isEqualTo(2);
    assertThat(o.snapshotEvery()).isEqualTo(Duration.ofMillis(250));
    assertThat(o.replayEndpoint()).isEqualTo("tcp://127.0.0.1:5558");
    assertThat(o.workerId().value()).isEqualTo("flag-pod");
    assertThat(o.zmqEndpoint()).isEqualTo("tcp://127.0.0.1:5557");
    assertThat(o.natsUrl()).isEqualTo("nats://127.0.0.1:4222");
    assertThat(o.bufferBatches()).isEqualTo(10_000);
  }

  @Test
  void workerIdFallsBackToPodNameThenHostname() {
    assertThat(
            RelayCommand.options(map(), map("POD_NAME", "p", "HOSTNAME", "h")).workerId().value())
        .isEqualTo("p");
    assertThat(RelayCommand.options(map(), map("HOSTNAME", "h")).workerId().value()).isEqualTo("h");
    assertThat(
            RelayCommand.options(map(), map("INFERA_WORKER_ID", "e", "HOSTNAME", "h"))
                .workerId()
                .value())
        .isEqualTo("e");
    assertThatThrownBy(() -> RelayCommand.options(map(), map()))
        .hasMessageStartingWith("--worker-id is required");
  }

  @ParameterizedTest
  @CsvSource({"5s, 5000", "500ms, 500", "2m, 120000", "1.5s, 1500", "7, 7000", "PT3S, 3000"})
  void durations(String text, long millis) {
    assertThat(
            RelayCommand.options(map("--worker-id", "w", "--snapshot-every", text), map())
                .snapshotEvery())
        .isEqualTo(Duration.ofMillis(millis));
  }

  @Test
  void bufferBytesComesFromItsFlagOrVariable() {
    assertThat(
            RelayCommand.options(map("--worker-id", "w", "--buffer-bytes", "1048576"), map())
                .bufferBytes())
        .isEqualTo(1L << 20);
    assertThat(
            RelayCommand.options(map("--worker-id", "w"), map("INFERA_BUFFER_BYTES", "4096"))
                .bufferBytes())
        .isEqualTo(4096);
    assertThatThrownBy(
            () -> RelayCommand.options(map("--worker-id", "w", "--buffer-bytes", "0"), map()))
        .hasMessageStartingWith("--buffer-bytes must be in [1, ");
    assertThatThrownBy(
            () -> RelayCommand.options(map("--worker-id", "w", "--buffer-bytes", "64MiB"), map()))
        .hasMessageStartingWith("--buffer-bytes");
  }

  @Test
  void anEnvValueThatIsWrongNamesItsVariable() {
    assertThatThrownBy(
            () -> RelayCommand.options(map("--worker-id", "w"), map("INFERA_BUFFER", "0")))
        .hasMessage("--buffer (from INFERA_BUFFER) must be >= 1, got 0");
  }

  record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    CommandLine cl = InferaRouter.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    "--block-size, 0, '--block-size must be in [1, 1048576], got 0'",
    "--block-size, x, '--block-size must be an integer, got ''x'''",
    "--engine, trtllm, '--engine must be vllm, sglang or atom'",
    "--zmq, localhost:5557, '--zmq must be a tcp://, ipc:// or inproc:// endpoint'",
    "--nats, http://x, '--nats must be nats://host:port'",
    "--snapshot-every, soon, '--snapshot-every must be a duration'",
    "--dp-size, 0, '--dp-size must be in [1, 1024], got 0'",
    "--snapshot-every-events, -1, '--snapshot-every-events must be >= 1, got -1'",
    "--subject-prefix, a.>, '--subject-prefix must be dot-separated NATS tokens'",
    "--pool, a.b, '--pool must be 1-63 letters'",
    "--nats-user, u, '--nats-*: a NATS user and its password file go together'",
    "--nats-tls-cert, /c.pem, '--nats-*: a TLS client certificate and its key go together'",
  })
  void badValuesExitTwoWithOneLineNamingTheFlag(String flag, String value, String message) {
    Run r = run("relay", "--worker-id", "w", flag, value);
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().lines())
        .singleElement()
        .asString()
        .startsWith("infera-router relay: ")
        .contains(message);
    assertThat(r.err()).doesNotContain("\tat ");
  }

  @Test
  void helpListsTheRelayAndItsFlags() {
    assertThat(run("--help").out()).contains("relay");
    Run r = run("relay", "--help");
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains("--zmq", "--replay", "--nats", "--worker-id", "--engine", "--block-size")
        .contains("--dp-size", "--subject-prefix", "--stream", "--snapshot-bucket")
        .contains("--snapshot-every-events", "--snapshot-every", "--buffer", "INFERA_")
        .contains("--pool", "--nats-user", "--nats-password-file", "--nats-creds")
        .contains("--nats-tls-ca", "--nats-tls-cert", "--nats-tls-key");
  }

  @Test
  void thePoolAndTheNatsCredentialsComeFromFlagsOrTheEnvironment() {
    RelayOptions o =
        RelayCommand.options(
            map("--worker-id", "w", "--nats-password-file", "/etc/infera/nats/password"),
            map(
                "INFERA_POOL", "decode",
                "INFERA_NATS_USER", "relay-decode",
                "INFERA_NATS_TLS_CA", "/etc/infera/nats-tls/ca.crt"));
    assertThat(o.pool()).isEqualTo("decode");
    assertThat(o.subject(0)).startsWith("infera.kv.events.decode.");
    assertThat(o.auth().user()).isEqualTo("relay-decode");
    assertThat(o.auth().passwordFile()).hasToString("/etc/infera/nats/password");
    assertThat(o.auth().tlsCaFile()).hasToString("/etc/infera/nats-tls/ca.crt");
    assertThat(o.auth().describe()).isEqualTo("user=relay-decode tls=ca");
  }

  @Test
  void httpPortDefaultsTo9400AndIsValidated() {
    assertThat(RelayCommand.httpPort(Map.of(), Map.of())).isEqualTo(9400);
    assertThat(RelayCommand.httpPort(Map.of("--http-port", "0"), Map.of())).isZero();
    assertThat(RelayCommand.httpPort(Map.of(), Map.of("INFERA_HTTP_PORT", "9500"))).isEqualTo(9500);
    assertThatThrownBy(() -> RelayCommand.httpPort(Map.of("--http-port", "70000"), Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--http-port must be 0..65535, got 70000");
    assertThatThrownBy(() -> RelayCommand.httpPort(Map.of(), Map.of("INFERA_HTTP_PORT", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--http-port (from INFERA_HTTP_PORT) must be an integer, got 'x'");
  }

  @Test
  void zmqModeConnectsByDefaultBindsOnRequestAndRefusesAnythingElse() {
    assertThat(RelayCommand.bindSub(Map.of(), Map.of())).isFalse();
    assertThat(RelayCommand.bindSub(Map.of("--zmq-mode", "connect"), Map.of())).isFalse();
    assertThat(RelayCommand.bindSub(Map.of("--zmq-mode", "BIND"), Map.of())).isTrue();
    assertThat(RelayCommand.bindSub(Map.of(), Map.of("INFERA_ZMQ_MODE", "bind"))).isTrue();
    assertThat(
            RelayCommand.bindSub(
                Map.of("--zmq-mode", "connect"), Map.of("INFERA_ZMQ_MODE", "bind")))
        .isFalse();
    assertThatThrownBy(() -> RelayCommand.bindSub(Map.of("--zmq-mode", "listen"), Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--zmq-mode must be connect or bind, got 'listen'");
    assertThat(RelayCommand.bindSub(Map.of(), Map.of("INFERA_ZMQ_MODE", " "))).isFalse();
    assertThatThrownBy(() -> RelayCommand.bindSub(Map.of(), Map.of("INFERA_ZMQ_MODE", "\u0000")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--zmq-mode (from INFERA_ZMQ_MODE) must be connect or bind");
  }

  @Test
  void aBusyHttpPortIsNamedAndNothingElseIsPrinted() throws Exception {
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0)) {
      int port = taken.getLocalPort();
      CliTest.Run r =
          CliTest.run(
              "relay",
              "--worker-id",
              "pod-1",
              "--zmq",
              "tcp://127.0.0.1:1",
              "--nats",
              "nats://127.0.0.1:1",
              "--http-port",
              Integer.toString(port));
      assertThat(r.code()).isEqualTo(1);
      assertThat(r.err().strip())
          .isEqualTo(
              "infera-router relay: port " + port + " (HTTP, --http-port) is already in use");
    }
  }
}
