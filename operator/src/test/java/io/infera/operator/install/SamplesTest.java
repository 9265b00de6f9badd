package io.infera.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.install.SampleBreaches.Breach;
import io.infera.operator.install.SampleBreaches.CelBreach;
import io.infera.operator.render.Renderer;
import io.infera.operator.render.ResourceParser;
import io.infera.operator.validation.SpecValidator;
import io.infera.operator.validation.Violation;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every sample (config/samples/ and the chart's NOTES.txt) is valid for the CRD's OpenAPI v3
 * schema, for the CEL rules (re-checked by {@link SpecValidator}) and for {@code infera-operator
 * render}; and an invalid variant of every schema constraint and every CEL rule is rejected.
 */
class SamplesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, Object> OPENAPI = SampleBreaches.OPENAPI;
  private static final Schema SCHEMA =
      SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4)
          .getSchema(JSON.valueToTree(OPENAPI));

  static Stream<Arguments> samples() {
    return SampleBreaches.samples().entrySet().stream()
        .map(e -> Arguments.of(e.getKey(), e.getValue()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void sampleIsValidAndRenders(String source, String text) {
    Map<String, Object> sample = InstallFiles.documents(text).get(0);
    assertThat(schemaErrors(sample)).as("%s against the CRD schema", source).isEmpty();
    assertThat(javaViolations(sample)).as("%s: SpecValidator", source).isEmpty();
    Renderer.Result r = Renderer.render(text, source, Renderer.Format.YAML);
    assertThat(r).as("%s: render", source).isInstanceOf(Renderer.Result.Rendered.class);
    assertThat(((Renderer.Result.Rendered) r).objects()).isGreaterThanOrEqualTo(6);
  }

  // ------------------------------------------------------------------ structural constraints

  static Stream<Breach> structuralBreaches() {
    return SampleBreaches.structural().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("structuralBreaches")
  void schemaRejectsABreachOfEveryConstraint(Breach breach) {
    Map<String, Object> sample = vllmSample();
    breach.apply().accept(sample);
    assertThat(schemaErrors(sample)).as("schema errors for %s", breach).isNotEmpty();
    assertThat(javaViolations(sample))
        .as("SpecValidator re-checks %s (render and the mock server run no schema)", breach)
        .isNotEmpty();
  }

  // ------------------------------------------------------------------ CEL rules

  static List<CelBreach> celBreaches() {
    return SampleBreaches.cel();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("celBreaches")
  void celRuleBreachPassesTheSchemaAndIsRefusedByTheOperator(CelBreach breach) {
    Map<String, Object> sample = sample(breach.base());
    breach.apply().accept(sample);
    assertThat(schemaErrors(sample)).as("only the CEL rule is broken").isEmpty();
    assertThat(javaViolations(sample))
        .extracting(Violation::message)
        .anySatisfy(m -> assertThat(m).startsWith(breach.rule()));
    Renderer.Result r = Renderer.render(yaml(sample), breach.base(), Renderer.Format.YAML);
    assertThat(r).isInstanceOf(Renderer.Result.Rejected.class);
    assertThat(((Renderer.Result.Rejected) r).message()).contains(breach.rule());
  }

  @Test
  void everyCelRuleOfTheCrdHasABreachCase() {
    Set<String> crdRules = new TreeSet<>();
    celMessages(OPENAPI, crdRules);
    Set<String> covered = new TreeSet<>();
    celBreaches().forEach(b -> covered.add(b.rule()));
    assertThat(covered).isEqualTo(crdRules);
  }

  @SuppressWarnings("unchecked")
  private static void celMessages(Object node, Set<String> out) {
    if (node instanceof Map<?, ?> m) {
      if (m.get("x-kubernetes-validations") instanceof List<?> rules) {
        for (Object r : rules) {
          out.add(String.valueOf(((Map<String, Object>) r).get("message")));
        }
      }
      m.values().forEach(v -> celMessages(v, out));
    } else if (node instanceof List<?> l) {
      l.forEach(v -> celMessages(v, out));
    }
  }

  // ------------------------------------------------------------------ helpers

  private static List<String> schemaErrors(Map<String, Object> resource) {
    JsonNode node = JSON.valueToTree(resource);
    return SCHEMA.validate(node).stream().map(Error::toString).toList();
  }

  private static List<Violation> javaViolations(Map<String, Object> resource) {
    try {
      InferaDeployment idep = ResourceParser.parse(yaml(resource), "variant");
      return SpecValidator.validate(idep);
    } catch (ResourceParser.ParseException e) {
      return List.of(new Violation("parse", e.getMessage()));
    }
  }

  private static String yaml(Map<String, Object> resource) {
    return SampleBreaches.yaml(resource);
  }

  private static Map<String, Object> sample(String file) {
    return SampleBreaches.sample(file);
  }

  private static Map<String, Object> vllmSample() {
    return SampleBreaches.vllmSample();
  }
}
