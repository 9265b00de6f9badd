package io.infera.operator.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.infera.operator.testing.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code render} of each sample in {@code config/samples/} equals its golden file under {@code
 * src/test/resources/golden/}. Regenerate after an intended change with {@code ./mvnw -B -pl
 * operator test -Dtest=RenderGoldenTest -Dgolden.update=true} and review the diff.
 */
class RenderGoldenTest {

  @ParameterizedTest(name = "{0} -o {1}")
  @CsvSource({
    "vllm-mixed.yaml, YAML, vllm-mixed.yaml",
    "sglang-pd.yaml, YAML, sglang-pd.yaml",
    "vllm-pd.yaml, YAML, vllm-pd.yaml",
    "atom-pd.yaml, YAML, atom-pd.yaml",
    "sim.yaml, YAML, sim.yaml",
    "sim.yaml, JSON, sim.json"
  })
  void sampleRendersItsGoldenOutput(String sample, Renderer.Format format, String golden)
      throws IOException {
    Path in = Fixtures.sample(sample);
    Renderer.Result r = Renderer.render(Fixtures.read(in), "config/samples/" + sample, format);
    if (r instanceof Renderer.Result.Rejected rejected) {
      fail("sample " + sample + " is refused: " + rejected.message());
    }
    String actual = ((Renderer.Result.Rendered) r).text();
    Path file = Fixtures.moduleDir().resolve("src/test/resources/golden").resolve(golden);
    if (Boolean.getBoolean("golden.update")) {
      Files.createDirectories(file.getParent());
      Files.writeString(file, actual);
    }
    assertThat(file).as("golden file (create it with -Dgolden.update=true)").exists();
    String expected = Files.readString(file).replace("\r\n", "\n");
    if (!expected.equals(actual)) {
      String[] e = expected.split("\n", -1);
      String[] a = actual.split("\n", -1);
      int i = 0;
      while (i < e.length && i < a.length && e[i].equals(a[i])) {
        i++;
      }
      fail(
          "render of config/samples/"
              + sample
              + " differs from golden/"
              + golden
              + " at line "
              + (i + 1)
              + ":\n  golden:   "
              + (i < e.length ? e[i] : "<end>")
              + "\n  rendered: "
              + (i < a.length ? a[i] : "<end>")
              + "\nIf the change is intended: ./mvnw -B -pl operator test -Dtest=RenderGoldenTest"
              + " -Dgolden.update=true, then review the diff of"
              + " operator/src/test/resources/golden/.");
    }
  }
}
