package io.infera.router.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.ConfigException;
import io.infera.router.config.ConfigLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * Every RouterConfig key the README, {@code docs/} and {@code config/router/reference.yaml} name
 * (as a backticked dotted path such as {@code `limits.maxBodyBytes`}) is a key the loader reads:
 * the reference document with that key set to a placeholder must not fail with "unknown key".
 */
class DocumentedConfigKeysTest {

  /** Top-level RouterConfig keys: a backticked path starting with one is a config key. */
  private static final Pattern KEY =
      Pattern.compile(
          "`((?:model|mustUnderstand|loraAdapters|pageSize|tokenizer|policy|events|discovery|limits|listen|admin)"
              + "(?:\\.[A-Za-z]+)*)`");

  /** The repository root (surefire passes it as {@code infera.repo}). */
  static Path repo() {
    String root = System.getProperty("infera.repo");
    if (root == null || !Files.exists(Path.of(root, "docs", "contracts.md"))) {
      throw new IllegalStateException("infera.repo does not name the repository root: " + root);
    }
    return Path.of(root);
  }

  static List<Path> documents() throws IOException {
    Path root = repo();
    List<Path> out = new ArrayList<>();
    out.add(root.resolve("README.md"));
    try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
      docs.filter(f -> f.toString().endsWith(".md")).sorted().forEach(out::add);
    }
    out.add(root.resolve("config/router/reference.yaml"));
    return out;
  }

  static TreeSet<String> documentedKeys() throws IOException {
    TreeSet<String> keys = new TreeSet<>();
    for (Path doc : documents()) {
      Matcher m = KEY.matcher(Files.readString(doc));
      while (m.find()) {
        keys.add(m.group(1));
      }
    }
    return keys;
  }

  @Test
  void theDocsNameConfigKeysAtAll() throws IOException {
    // Guards the extraction: if the convention changed, this test would silently check nothing.
    assertThat(documentedKeys())
        .contains("limits.maxBodyBytes", "events.nats.url", "tokenizer.mode", "discovery.workers");
  }

  @Test
  void everyDocumentedKeyIsReadByTheLoader() throws IOException {
    String reference = Files.readString(repo().resolve("config/router/reference.yaml"));
    List<String> unknown = new ArrayList<>();
    for (String key : documentedKeys()) {
      if (!known(reference, key)) {
        unknown.add(key);
      }
    }
    assertThat(unknown).as("documented keys the loader does not know").isEmpty();
  }

  @Test
  void aKeyTheLoaderDoesNotKnowIsCaught() throws IOException {
    String reference = Files.readString(repo().resolve("config/router/reference.yaml"));
    assertThat(known(reference, "limits.maxBodyBytes")).isTrue();
    assertThat(known(reference, "events.nats")).isTrue();
    assertThat(known(reference, "limits.maxBodySize")).isFalse();
    assertThat(known(reference, "events.nats.token")).isFalse();
    assertThat(known(reference, "listener")).isFalse();
  }

  /**
   * Whether the reference document with {@code key} set to a placeholder parses past key checks.
   */
  @SuppressWarnings("unchecked")
  static boolean known(String reference, String key) {
    Map<String, Object> doc = new Yaml().load(reference);
    String[] parts = key.split("\\.");
    Map<String, Object> node = doc;
    for (int i = 0; i < parts.length - 1; i++) {
      Object next = node.get(parts[i]);
      if (!(next instanceof Map)) {
        next = new LinkedHashMap<String, Object>();
        node.put(parts[i], next);
      }
      node = (Map<String, Object>) next;
    }
    node.put(parts[parts.length - 1], "placeholder-value");
    try {
      ConfigLoader.parse(new Yaml().dump(doc));
      return true;
    } catch (ConfigException e) {
      return !e.getMessage().startsWith(key + ": unknown key");
    }
  }
}
