package io.infera.operator.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What {@code kubectl} users and the API server see in the generated CRD. */
class CrdContentTest {

  static CustomResourceDefinition crd;
  static CustomResourceDefinitionVersion v1alpha1;

  @BeforeAll
  static void load() throws IOException {
    crd =
        Serialization.unmarshal(
            Files.readString(CrdDriftTest.generated()), CustomResourceDefinition.class);
    v1alpha1 = crd.getSpec().getVersions().get(0);
  }

  @Test
  void namesScopeAndStatusSubresource() {
    assertThat(crd.getMetadata().getName()).isEqualTo("inferadeployments.infera.io");
    assertThat(crd.getSpec().getGroup()).isEqualTo("infera.io");
    assertThat(crd.getSpec().getScope()).isEqualTo("Namespaced");
    assertThat(crd.getSpec().getNames().getKind()).isEqualTo("InferaDeployment");
    assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("idep");
    assertThat(crd.getSpec().getVersions()).hasSize(1);
    assertThat(v1alpha1.getName()).isEqualTo("v1alpha1");
    assertThat(v1alpha1.getSubresources().getStatus()).isNotNull();
  }

  @Test
  void kubectlGetShowsPhaseRoutersWorkersHitRatioAndAgeInThatOrder() {
    List<CustomResourceColumnDefinition> cols = v1alpha1.getAdditionalPrinterColumns();
    assertThat(cols)
        .extracting(CustomResourceColumnDefinition::getName)
        .containsExactly("PHASE", "ROUTERS", "WORKERS", "HIT%", "AGE");
    assertThat(cols)
        .extracting(CustomResourceColumnDefinition::getJsonPath)
        .containsExactly(
            ".status.phase",
            ".status.routersSummary",
            ".status.workersSummary",
            ".status.hitPercent",
            ".metadata.creationTimestamp");
    // Every status column points at a status field that exists.
    Map<String, JSONSchemaProps> status = props(schema(), "status");
    for (CustomResourceColumnDefinition c : cols) {
      if (c.getJsonPath().startsWith(".status.")) {
        assertThat(status).containsKey(c.getJsonPath().substring(".status.".length()));
      }
    }
  }

  /**
   * The API server stores a column's default priority 0 as absent; a CRD that spells it out differs
   * from its stored form in the atomic {@code spec.versions} list, which makes a server-side apply
   * after a client-side one conflict (seen on a real kube-apiserver, CrdInstallIT).
   */
  @Test
  void printerColumnsCarryNoDefaultPriority() throws IOException {
    assertThat(v1alpha1.getAdditionalPrinterColumns())
        .extracting(CustomResourceColumnDefinition::getPriority)
        .allMatch(p -> p == null || p != 0);
    assertThat(Files.readString(CrdDriftTest.generated())).doesNotContain("priority: 0");
  }

  @Test
  void everyCelRuleOfTheCrdIsOneOfTheRulesTheJavaValidatorMirrors() throws IllegalAccessException {
    Set<String> inCrd = new TreeSet<>();
    collectRules(schema(), inCrd);
    Set<String> inRules = new TreeSet<>();
    for (Field f : Rules.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getName().endsWith("_MESSAGE")) {
        inRules.add((String) f.get(null));
      }
    }
    assertThat(inCrd).isEqualTo(inRules);
  }

  @Test
  void defaultsAndValidationReachTheSchema() {
    Map<String, JSONSchemaProps> spec = props(schema(), "spec");
    assertThat(spec.get("pageSize").getDefault().asInt()).isEqualTo(16);
    assertThat(spec.get("pageSize").getMinimum()).isEqualTo(1.0);
    assertThat(spec.get("pageSize").getMaximum()).isEqualTo(1024.0);
    // No default: unset, the operator generates one per deployment (GeneratedSecret).
    assertThat(spec.get("pythonHashSeed").getDefault()).isNull();
    assertThat(spec.get("networkPolicy").getProperties().get("enabled").getDefault().asBoolean())
        .isTrue();
    assertThat(spec.get("engine").getEnum())
        .extracting(n -> n.asText())
        .containsExactlyInAnyOrder("vllm", "sglang", "atom", "sim");
    assertThat(schema().getProperties().get("spec").getRequired())
        .containsExactlyInAnyOrder("model", "pools");
    JSONSchemaProps pool = spec.get("pools").getItems().getSchema();
    assertThat(pool.getRequired()).containsExactly("name");
    assertThat(pool.getProperties().get("replicas").getMinimum()).isEqualTo(0.0);
    assertThat(pool.getProperties().get("role").getDefault().asText()).isEqualTo("mixed");
    assertThat(pool.getProperties().get("name").getPattern()).isEqualTo(Rules.POOL_NAME_PATTERN);
    // No schema default: the engine decides it (amd.com/gpu for atom, nvidia.com/gpu otherwise).
    JSONSchemaProps gpuType = pool.getProperties().get("resources").getProperties().get("gpuType");
    assertThat(gpuType.getDefault()).isNull();
    assertThat(gpuType.getDescription()).contains("amd.com/gpu for engine atom");
    Map<String, JSONSchemaProps> router = props(schema().getProperties().get("spec"), "router");
    assertThat(router.get("policy").getEnum())
        .extracting(n -> n.asText())
        .containsExactlyInAnyOrder("kv-aware", "approx-prefix", "least-loaded", "round-robin");
    assertThat(router.get("replicas").getMinimum()).isEqualTo(0.0);
    // Every spec field is documented.
    List<String> undocumented = new ArrayList<>();
    collectUndocumented("spec", schema().getProperties().get("spec"), undocumented);
    assertThat(undocumented).isEmpty();
  }

  private static JSONSchemaProps schema() {
    return v1alpha1.getSchema().getOpenAPIV3Schema();
  }

  private static Map<String, JSONSchemaProps> props(JSONSchemaProps parent, String field) {
    return parent.getProperties().get(field).getProperties();
  }

  private static void collectRules(JSONSchemaProps s, Set<String> out) {
    if (s == null) {
      return;
    }
    for (ValidationRule r : s.getXKubernetesValidations()) {
      out.add(r.getMessage());
    }
    s.getProperties().values().forEach(p -> collectRules(p, out));
    if (s.getItems() != null) {
      collectRules(s.getItems().getSchema(), out);
    }
  }

  /** Fields of the Infera model (not embedded Kubernetes types) without a description. */
  private static void collectUndocumented(String path, JSONSchemaProps s, List<String> out) {
    if (path.endsWith(".env") || path.endsWith(".tolerations")) {
      return;
    }
    s.getProperties()
        .forEach(
            (name, p) -> {
              String child = path + "." + name;
              if (p.getDescription() == null || p.getDescription().isBlank()) {
                out.add(child);
              }
              collectUndocumented(child, p, out);
              if (p.getItems() != null && p.getItems().getSchema() != null) {
                collectUndocumented(child, p.getItems().getSchema(), out);
              }
            });
  }
}
