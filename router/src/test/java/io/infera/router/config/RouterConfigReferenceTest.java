package io.infera.router.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code config/router/reference.yaml} is the RouterConfig reference the README points to: it must
 * parse (the loader rejects unknown keys, so it invents none), name every key the loader reads (so
 * nothing is undocumented), and state the real defaults.
 */
class RouterConfigReferenceTest {

  private static final Path REFERENCE = Path.of("..", "config", "router", "reference.yaml");
  private static final Path LOADER =
      Path.of("src", "main", "java", "io", "infera", "router", "config", "ConfigLoader.java");

  @Test
  void parsesStrictly() throws Exception {
    RouterConfig c = ConfigLoader.parse(Files.readString(REFERENCE));
    assertThat(c.model()).isEqualTo("Qwen/Qwen3-0.6B");
    assertThat(c.discovery().pools()).hasSize(1);
    assertThat(c.discovery().workers()).hasSize(1);
  }

  @Test
  void documentsEveryKeyTheLoaderReads() throws Exception {
    String reference = Files.readString(REFERENCE);
    Set<String> keys = loaderKeys();
    assertThat(keys).as("keys found in ConfigLoader").hasSizeGreaterThan(40);
    List<String> missing = new ArrayList<>();
    for (String key : keys) {
      if (!Pattern.compile("(?m)^\\s*(#\\s*)?(- )?" + key + ":").matcher(reference).find()) {
        missing.add(key);
      }
    }
    assertThat(missing).as("keys ConfigLoader reads but reference.yaml does not show").isEmpty();
  }

  @Test
  void statesTheDefaults() throws Exception {
    // What the reference sets beyond the required parts must equal leaving it out.
    String minimal =
        """
        model: Qwen/Qwen3-0.6B
        tokenizer: {path: builtin:qwen3}
        discovery:
          pools: [{name: decode}]
          workers: [{id: w0, url: http://127.0.0.1:8001, zmq: tcp://127.0.0.1:5557,
                     zmqReplay: tcp://127.0.0.1:5558}]
        """;
    assertThat(ConfigLoader.parse(Files.readString(REFERENCE)))
        .isEqualTo(ConfigLoader.parse(minimal));
  }

  /** Every quoted key in the loader's {@code only(...)} calls. */
  private static Set<String> loaderKeys() throws Exception {
    String src = Files.readString(LOADER);
    Set<String> keys = new LinkedHashSet<>();
    Matcher only = Pattern.compile("\\.only\\(([^;]*?)\\);", Pattern.DOTALL).matcher(src);
    while (only.find()) {
      Matcher q = Pattern.compile("\"([A-Za-z]+)\"").matcher(only.group(1));
      while (q.find()) {
        keys.add(q.group(1));
      }
    }
    return keys;
  }
}
