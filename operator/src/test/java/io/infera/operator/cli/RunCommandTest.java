package io.infera.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** {@code infera-operator run}: options, help and errors, without starting anything. */
class RunCommandTest {

  record Result(int code, String out, String err) {}

  static Result run(String... args) {
    CommandLine cl = InferaOperator.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Result(code, out.toString(), err.toString());
  }

  @Test
  void helpDescribesEveryOption() {
    Result r = run("run", "--help");
    assertThat(r.code()).isZero();
    for (String opt :
        new String[] {
          "--namespace",
          "--[no-]server-side-apply",
          "--[no-]leader-election",
          "--lease-name",
          "--lease-namespace",
          "--http-port",
          "--resync",
          "--router-status-url",
          "--router-status-timeout",
          "--reconcile-threads",
          "/healthz, /readyz and /metrics",
          "infera-operator-lock",
          "http://{name}-router.{namespace}.svc:",
          "Exit codes"
        }) {
      assertThat(r.out().replaceAll("\\s+", " ")).contains(opt);
    }
    assertThat(run("--help").out()).contains("run").contains("render");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          --resync=10x                         | expected a duration such as 500ms
          --router-status-timeout=soon          | expected a duration such as 500ms
          --router-status-url=ftp://x/{name}    | must give an absolute http:// or https:// URL
          --reconcile-threads=0                 | reconcile threads must be at least 1
          --http-port=70000                     | --http-port must be in 0..65535
          --http-port=eighty                    | Invalid value for option '--http-port'
          --resync=0s                           | resync must be positive
          --no-such-option                      | Unknown option
          """)
  void invalidOptionsExitTwoWithAMessageAndNoStackTrace(String arg, String message) {
    Result r = run("run", arg);
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains(message).doesNotContain("\tat ").doesNotContain("Exception");
  }

  @Test
  void startFailuresAreExplainedInOneLine() {
    KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder().withMasterUrl("https://k8s.example:6443").build())
            .build();
    try {
      assertThat(
              RunCommand.explain(
                  new RuntimeException(new KubernetesClientException("Not Found", 404, null)),
                  client))
          .contains("does not serve inferadeployments.infera.io")
          .contains("kubectl apply -f crds/");
      assertThat(
              RunCommand.explain(
                  new KubernetesClientException("Forbidden\nmore", 403, null), client))
          .contains("not allowed")
          .contains("HTTP 403")
          .doesNotContain("more");
      assertThat(RunCommand.explain(new KubernetesClientException("refused", 0, null), client))
          .startsWith("cannot reach the API server at https://k8s.example:6443/");
      assertThat(
              RunCommand.explain(
                  new IllegalStateException("boom", new java.io.IOException("disk")), client))
          .contains("boom")
          .contains("disk");
    } finally {
      client.close();
    }
  }
}
