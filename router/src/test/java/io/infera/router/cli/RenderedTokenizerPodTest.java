package io.infera.router.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.hub.FakeHub;
import io.infera.router.runtime.DefaultParts;
import io.infera.router.tokenize.PromptTokenizer;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;
import picocli.CommandLine;

/**
 * The router pod the operator renders for a downloaded hub tokenizer (the vllm-mixed golden), run
 * as its containers say: the init container's args and env fill the shared volume, then the
 * router's HF_HOME and RouterConfig find the tokenizer there. The volume is a temporary directory
 * standing in for the emptyDir; the hub is a fake one on loopback.
 */
class RenderedTokenizerPodTest {

  @TempDir Path volume;

  @SuppressWarnings("unchecked")
  @Test
  void theInitContainerFillsWhatTheRouterContainerReads() throws Exception {
    Path repo = Path.of(System.getProperty("infera.repo"));
    Map<String, Object> deployment = null;
    String routerYaml = null;
    for (Object o :
        new Yaml()
            .loadAll(
                Files.readString(
                    repo.resolve("operator/src/test/resources/golden/vllm-mixed.yaml")))) {
      Map<String, Object> doc = (Map<String, Object>) o;
      String name = (String) ((Map<String, Object>) doc.get("metadata")).get("name");
      if ("demo-router".equals(name) && "Deployment".equals(doc.get("kind"))) {
        deployment = doc;
      }
      if ("demo-router".equals(name) && "ConfigMap".equals(doc.get("kind"))) {
        routerYaml = (String) ((Map<String, Object>) doc.get("data")).get("router.yaml");
      }
    }
    Map<String, Object> pod =
        (Map<String, Object>)
            ((Map<String, Object>) ((Map<String, Object>) deployment.get("spec")).get("template"))
                .get("spec");
    Map<String, Object> init = ((List<Map<String, Object>>) pod.get("initContainers")).get(0);
    Map<String, Object> router = ((List<Map<String, Object>>) pod.get("containers")).get(0);
    String initMount = mountPath(init, "hf");
    String routerMount = mountPath(router, "hf");
    assertThat(initMount).isEqualTo(routerMount);
    // The token comes from the Secret the sample names (set by hand below: no kubelet here).
    assertThat((List<Map<String, Object>>) init.get("env"))
        .anySatisfy(
            e -> {
              assertThat(e.get("name")).isEqualTo("HF_TOKEN");
              assertThat(e.get("valueFrom").toString()).contains("name=hf-token");
            });

    try (FakeHub hub = new FakeHub()) {
      byte[] tokenizer;
      try (InputStream in =
          new GZIPInputStream(
              getClass()
                  .getResourceAsStream("/io/infera/router/tokenize/qwen3/tokenizer.json.gz"))) {
        tokenizer = in.readAllBytes();
      }
      hub.file("Qwen/Qwen3-8B", "main", "tokenizer.json", tokenizer, "a".repeat(40));

      // The init container: its args, paths under the mount remapped onto the stand-in volume.
      List<String> args = new ArrayList<>();
      for (String a : (List<String>) init.get("args")) {
        args.add(a.startsWith(initMount) ? volume + a.substring(initMount.length()) : a);
      }
      assertThat(args.get(0)).isEqualTo("fetch-tokenizer");
      FetchTokenizerCommand cmd = new FetchTokenizerCommand();
      cmd.env = Map.of("HF_ENDPOINT", hub.endpoint().toString(), "HF_TOKEN", "hf_from_secret");
      CommandLine cl = new CommandLine(cmd);
      StringWriter err = new StringWriter();
      cl.setErr(new PrintWriter(err));
      cl.setOut(new PrintWriter(new StringWriter()));
      assertThat(cl.execute(args.subList(1, args.size()).toArray(String[]::new)))
          .as(err.toString())
          .isZero();
      assertThat(hub.seen).allMatch(s -> "Bearer hf_from_secret".equals(s.authorization()));

      // The router container: its HF_HOME, remapped the same way, and its RouterConfig.
      String hfHome = env(router, "HF_HOME");
      assertThat(hfHome).startsWith(routerMount);
      RouterConfig cfg = ConfigLoader.parse(routerYaml);
      try (PromptTokenizer tok =
          new DefaultParts(Map.of("HF_HOME", volume + hfHome.substring(routerMount.length())))
              .tokenizer(cfg)) {
        assertThat(tok.encodeText("Hello, world").ids()).isNotEmpty();
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static String mountPath(Map<String, Object> container, String volume) {
    return ((List<Map<String, Object>>) container.get("volumeMounts"))
        .stream()
            .filter(m -> volume.equals(m.get("name")))
            .map(m -> (String) m.get("mountPath"))
            .findFirst()
            .orElseThrow();
  }

  @SuppressWarnings("unchecked")
  private static String env(Map<String, Object> container, String name) {
    return ((List<Map<String, Object>>) container.get("env"))
        .stream()
            .filter(e -> name.equals(e.get("name")))
            .map(e -> (String) e.get("value"))
            .findFirst()
            .orElseThrow();
  }
}
