package io.infera.router.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FetchTokenizerCommandTest {

  @TempDir Path tmp;

  @ParameterizedTest
  @ValueSource(strings = {"noslash", "../x/y", "a/b/c"})
  void aBadModelIsAUsageErrorWithoutARequest(String model) {
    CliTest.Run r =
        CliTest.run(
            "fetch-tokenizer",
            "--model",
            model,
            "--endpoint",
            "http://127.0.0.1:9",
            "--dir",
            tmp.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("infera-router fetch-tokenizer: --model: expected ORG/NAME");
  }

  @Test
  void aBadRevisionOrEndpointIsAUsageError() {
    assertThat(
            CliTest.run(
                    "fetch-tokenizer",
                    "--model",
                    "a/b",
                    "--revision",
                    "../main",
                    "--dir",
                    tmp.toString())
                .code())
        .isEqualTo(2);
    CliTest.Run r =
        CliTest.run(
            "fetch-tokenizer",
            "--model",
            "a/b",
            "--endpoint",
            "file:///x",
            "--dir",
            tmp.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("http(s) URL");
  }

  @Test
  void anUnreachableHubIsOneLineAndExitOneNeverAStackTrace() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    CliTest.Run r =
        CliTest.run(
            "fetch-tokenizer",
            "--model",
            "acme/tiny",
            "--endpoint",
            "http://127.0.0.1:" + port,
            "--dir",
            tmp.toString(),
            "--timeout",
            "5");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err())
        .contains("acme/tiny@main from http://127.0.0.1:" + port + " (no HF_TOKEN) into " + tmp)
        .contains(
            "infera-router fetch-tokenizer: cannot fetch tokenizer.json from http://127.0.0.1:"
                + port
                + "/acme/tiny/resolve/main/tokenizer.json: ConnectException")
        .doesNotContain("\tat ");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void helpNamesTheEnvironment() {
    CliTest.Run r = CliTest.run("fetch-tokenizer", "--help");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("HF_TOKEN").contains("HF_ENDPOINT").contains("--revision");
  }
}
