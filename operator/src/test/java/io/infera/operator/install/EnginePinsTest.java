package io.infera.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.desired.Fleet;
import io.infera.operator.desired.Images;
import io.infera.operator.desired.Names;
import io.infera.operator.testing.EngineWheels;
import io.infera.operator.testing.Fixtures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The operator's default engine images, the samples, the Helm chart and the docs name exactly the
 * releases in {@code build/engines.properties} (the ones the conformance tests load), so a bump
 * there cannot leave a stale tag behind.
 */
class EnginePinsTest {

  /** An engine image reference anywhere in a text: repository and tag. */
  private static final Pattern ENGINE_IMAGE =
      Pattern.compile("(vllm/vllm-openai|lmsysorg/sglang):([A-Za-z0-9_.${}-]+)");

  private static final Properties PINS = EngineWheels.releases();

  private static final Map<String, String> PINNED =
      Map.of(
          "vllm/vllm-openai", "v" + PINS.getProperty("vllm").strip(),
          "lmsysorg/sglang", "v" + PINS.getProperty("sglang").strip());

  @Test
  void theDefaultImagesAreThePinnedReleases() {
    assertThat(Images.VLLM).isEqualTo("vllm/vllm-openai:" + PINNED.get("vllm/vllm-openai"));
    assertThat(Images.SGLANG).isEqualTo("lmsysorg/sglang:" + PINNED.get("lmsysorg/sglang"));
    assertThat(Images.engine(Engine.VLLM)).isEqualTo(Images.VLLM);
    assertThat(Images.engine(Engine.SGLANG)).isEqualTo(Images.SGLANG);
  }

  @Test
  void everySampleRunsThePinnedImageOfItsEngine() throws IOException {
    int engines = 0;
    for (Path sample : files("config/samples")) {
      InferaDeployment idep = Fixtures.parseSample(sample.getFileName().toString());
      Engine engine = idep.getSpec().getEngine();
      if (engine == Engine.SIM) {
        continue;
      }
      Fleet f = Fixtures.fleet(idep);
      for (Deployment d : f.poolDeployments().values()) {
        Container c =
            d.getSpec().getTemplate().getSpec().getContainers().stream()
                .filter(x -> x.getName().equals(Names.ENGINE_CONTAINER))
                .findFirst()
                .orElseThrow();
        assertThat(c.getImage())
            .as(sample + " " + d.getMetadata().getName())
            .isEqualTo(Images.engine(engine));
      }
      engines++;
    }
    assertThat(engines).as("samples with a vLLM or SGLang pool").isGreaterThanOrEqualTo(2);
  }

  @Test
  void everyEngineImageNamedInTheRepositoryIsPinned() throws IOException {
    List<Path> texts = new ArrayList<>();
    for (String dir :
        List.of("charts", "config", "docs", "deploy", "operator/src/test/resources")) {
      texts.addAll(files(dir));
    }
    texts.add(InstallFiles.path("README.md"));
    List<String> stale = new ArrayList<>();
    int named = 0;
    for (Path p : texts) {
      Matcher m = ENGINE_IMAGE.matcher(Files.readString(p));
      while (m.find()) {
        named++;
        if (!m.group(2).equals(PINNED.get(m.group(1)))) {
          stale.add(InstallFiles.root().relativize(p) + ": " + m.group());
        }
      }
    }
    assertThat(stale).as("engine images other than build/engines.properties").isEmpty();
    // The goldens and docs/contracts.md name both images, so this test has something to check.
    assertThat(named).isGreaterThanOrEqualTo(4);
    assertThat(InstallFiles.text("docs/contracts.md"))
        .contains("`" + Images.VLLM + "`")
        .contains("`" + Images.SGLANG + "`");
  }

  @Test
  void aStaleTagIsCaught() {
    Matcher m = ENGINE_IMAGE.matcher("image: lmsysorg/sglang:v0.5.3 and vllm/vllm-openai:latest");
    assertThat(m.find()).isTrue();
    assertThat(m.group(2)).isNotEqualTo(PINNED.get(m.group(1)));
    assertThat(m.find()).isTrue();
    assertThat(m.group(2)).isEqualTo("latest").isNotEqualTo(PINNED.get(m.group(1)));
  }

  private static List<Path> files(String dir) {
    Path root = InstallFiles.path(dir);
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(Files::isRegularFile)
          .filter(p -> p.toString().matches(".*\\.(ya?ml|json|md|tpl|txt|lua)$"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
