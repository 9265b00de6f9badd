package io.infera.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** Every {@code --version} prints {@code infera-operator <Maven project version>}. */
class VersionTest {

  /** The version the build runs with (surefire sets it), independent of version.properties. */
  private static String projectVersion() {
    String v = System.getProperty("project.version");
    assertThat(v)
        .as("system property project.version (set by the surefire configuration)")
        .isNotBlank();
    return v;
  }

  @ParameterizedTest
  @ValueSource(strings = {"--version", "-V", "run --version", "render --version", "run -V"})
  void printsTheProgramAndTheProjectVersion(String args) {
    CommandLine cl = InferaOperator.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));

    int code = cl.execute(args.split(" "));

    assertThat(code).isZero();
    assertThat(err.toString()).isEmpty();
    assertThat(out.toString().strip()).isEqualTo("infera-operator " + projectVersion());
  }
}
