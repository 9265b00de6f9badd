package io.infera.operator.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * Every InferaDeployment field the README and {@code docs/} name as a backticked path ({@code
 * `spec.router.replicas`}, {@code `status.phase`}, {@code `spec.pools[]`}) exists in the checked-in
 * CRD's schema, which is generated from the Java model.
 */
class DocumentedFieldsTest {

  private static final Pattern FIELD =
      Pattern.compile("`((?:spec|status)(?:\\.[A-Za-z]+|\\[\\])*)`");

  static Set<String> documented() {
    return DocsText.mentioned(FIELD);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> schema() throws IOException {
    Map<String, Object> crd =
        new Yaml()
            .load(
                Files.readString(
                    DocsText.repo().resolve("crds/inferadeployments.infera.io-v1.yml")));
    Map<String, Object> spec = (Map<String, Object>) crd.get("spec");
    Map<String, Object> version = ((List<Map<String, Object>>) spec.get("versions")).get(0);
    return (Map<String, Object>)
        ((Map<String, Object>) version.get("schema")).get("openAPIV3Schema");
  }

  /** Whether {@code path} names a field of {@code schema} ({@code []} steps into array items). */
  @SuppressWarnings("unchecked")
  static boolean exists(Map<String, Object> schema, String path) {
    Map<String, Object> node = schema;
    for (String step : path.replace("[]", ".[]").split("\\.")) {
      if (step.equals("[]")) {
        if (!(node.get("items") instanceof Map)) {
          return false;
        }
        node = (Map<String, Object>) node.get("items");
        continue;
      }
      Object props = node.get("properties");
      if (!(props instanceof Map<?, ?> p) || !(p.get(step) instanceof Map)) {
        return false;
      }
      node = (Map<String, Object>) p.get(step);
    }
    return true;
  }

  @Test
  void theDocsNameFieldsAtAll() throws IOException {
    assertThat(documented()).contains("spec.pageSize", "spec.router.replicas", "spec.pools[]");
  }

  @Test
  void everyDocumentedFieldIsInTheCrd() throws IOException {
    Map<String, Object> schema = schema();
    assertThat(documented().stream().filter(f -> !exists(schema, f)).toList())
        .as("documented InferaDeployment fields missing from the CRD")
        .isEmpty();
  }

  @Test
  void aFieldNotInTheCrdIsCaught() throws IOException {
    Map<String, Object> schema = schema();
    assertThat(exists(schema, "spec.router.replicas")).isTrue();
    assertThat(exists(schema, "spec.pools[].replicas")).isTrue();
    assertThat(exists(schema, "spec.router.replica")).isFalse();
    assertThat(exists(schema, "spec.pools.replicas")).isFalse();
    assertThat(exists(schema, "status.nonsense")).isFalse();
  }
}
