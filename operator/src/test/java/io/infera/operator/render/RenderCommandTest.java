package io.infera.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infera.operator.cli.InferaOperator;
import io.infera.operator.testing.Fixtures;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code infera-operator render} as a user runs it: output, exit codes, one-line reasons. */
class RenderCommandTest {

  @TempDir Path tmp;

  record Run(int exit, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var cl = InferaOperator.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  private Path file(String text) throws IOException {
    Path p = Files.createTempFile(tmp, "idep", ".yaml");
    Files.writeString(p, text);
    return p;
  }

  private static final String VALID =
      """
      apiVersion: infera.io/v1alpha1
      kind: InferaDeployment
      metadata: {name: demo}
      spec:
        model: m
        pools: [{name: mixed, resources: {gpu: 1}}]
      """;

  @Test
  void rendersASampleAsMultiDocumentYaml() {
    Run r = run("render", "-f", Fixtures.sample("sim.yaml").toString());
    assertThat(r.exit()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.out()).startsWith("---\napiVersion: v1\nkind: ServiceAccount\n");
    assertThat(r.out().split("\n---\n")).hasSize(14);
  }

  @Test
  void rendersJsonAsAV1List() throws IOException {
    Run r = run("render", "-f", file(VALID).toString(), "-o", "json");
    assertThat(r.exit()).isZero();
    JsonNode list = new ObjectMapper().readTree(r.out());
    assertThat(list.get("kind").asText()).isEqualTo("List");
    assertThat(list.get("items")).hasSize(14);
    assertThat(list.get("items").get(0).get("kind").asText()).isEqualTo("ServiceAccount");
    assertThat(list.get("items").get(0).at("/metadata/namespace").asText()).isEqualTo("default");
  }

  @Test
  void sameInputSameBytes() throws IOException {
    Path p = file(VALID);
    assertThat(run("render", "-f", p.toString()).out())
        .isEqualTo(run("render", "-f", p.toString()).out());
  }

  @Test
  void missingFileExitsTwoWithAMessage() {
    Run r = run("render", "-f", tmp.resolve("nope.yaml").toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).contains("nope.yaml").contains("no such file");
  }

  @Test
  void yamlErrorExitsTwoWithOneLine() throws IOException {
    Run r = run("render", "-f", file("spec: [unclosed\n  model: x\n").toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).contains("invalid YAML");
    assertOneLine(r.err());
  }

  @Test
  void unknownFieldExitsTwoNamingItsPath() throws IOException {
    Run r =
        run(
            "render",
            "-f",
            file(VALID.replace("name: mixed", "name: mixed, replica: 2")).toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("spec.pools[0].replica: unknown field");
    assertOneLine(r.err());
  }

  @Test
  void celViolationExitsTwo() throws IOException {
    Run r =
        run("render", "-f", file(VALID.replace("model: m", "model: m\n  pageSize: 48")).toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("InvalidSpec").contains("spec.pageSize").contains("power of two");
    assertOneLine(r.err());
  }

  @Test
  void contradictingArgsExitTwoNamingPoolAndFlag() throws IOException {
    Run r =
        run(
            "render",
            "-f",
            file(VALID.replace("resources: {gpu: 1}", "args: [--block-size, '64']")).toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("pool 'mixed'").contains("--block-size 64");
    assertOneLine(r.err());
  }

  @Test
  void invalidQuantityExitsTwoNamingTheField() throws IOException {
    Run r =
        run(
            "render",
            "-f",
            file(VALID.replace("resources: {gpu: 1}", "resources: {memory: lots}")).toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("spec.pools[0].resources.memory");
    assertOneLine(r.err());
  }

  @Test
  void badOutputFormatIsAUsageError() throws IOException {
    Run r = run("render", "-f", file(VALID).toString(), "-o", "xml");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("expected yaml or json");
  }

  @Test
  void fileIsRequired() {
    assertThat(run("render").exit()).isEqualTo(2);
  }

  @Test
  void versionNamesTheOperator() {
    assertThat(run("--version").out()).startsWith("infera-operator ");
  }

  private static void assertOneLine(String err) {
    assertThat(err.strip())
        .doesNotContain("\n")
        .doesNotContain("\tat ")
        .doesNotContain("Exception");
  }
}
