package io.infera.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

class VersionTest {

  /** The Maven project version, as the build passes it (sim/pom.xml, surefire). */
  static String expectedVersion() {
    String v = System.getProperty("infera.expected.version");
    assertThat(v)
        .as("system property infera.expected.version (set by surefire from ${project.version})")
        .isNotBlank()
        .doesNotContain("${");
    return v;
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "engine", "demo", "bench"})
  void everyCommandPrintsTheProgramAndTheProjectVersion(String subcommand) {
    StringWriter out = new StringWriter();
    CommandLine cl = InferaSim.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(new StringWriter()));
    String[] args =
        subcommand.isEmpty() ? new String[] {"--version"} : new String[] {subcommand, "--version"};
    assertThat(cl.execute(args)).isZero();
    assertThat(out.toString())
        .isEqualTo("infera-sim " + expectedVersion() + System.lineSeparator());
  }

  @Test
  void theFilteredResourceCarriesTheProjectVersion() {
    assertThat(Version.projectVersion()).isEqualTo(expectedVersion());
  }
}
