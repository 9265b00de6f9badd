package io.infera.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.Rules;
import io.infera.operator.render.Renderer;
import io.infera.operator.render.ResourceParser;
import io.infera.operator.validation.SpecValidator;
import io.infera.operator.validation.Violation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * Every sample (config/samples/ and the chart's NOTES.txt) is valid for the CRD's OpenAPI v3
 * schema, for the CEL rules (re-checked by {@link SpecValidator}) and for {@code infera-operator
 * render}; and an invalid variant of every schema constraint and every CEL rule is rejected.
 */
class SamplesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, Object> CRD = InstallFiles.document(InstallFiles.CRD);
  private static final Map<String, Object> OPENAPI = openApiSchema();
  private static final Schema SCHEMA =
      SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4)
          .getSchema(JSON.valueToTree(OPENAPI));

  @SuppressWarnings("unchecked")
  private static Map<String, Object> openApiSchema() {
    List<Object> versions = InstallFiles.list(CRD, "spec", "versions");
    assertThat(versions).hasSize(1);
    return InstallFiles.map((Map<String, Object>) versions.get(0), "schema", "openAPIV3Schema");
  }

  static Stream<Arguments> samples() {
    List<Arguments> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(InstallFiles.path("config/samples"))) {
      files
          .filter(f -> f.toString().endsWith(".yaml"))
          .sorted()
          .forEach(
              f ->
                  out.add(
                      Arguments.of(
                          "config/samples/" + f.getFileName(),
                          InstallFiles.text("config/samples/" + f.getFileName()))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(out).as("config/samples/*.yaml").hasSizeGreaterThanOrEqualTo(3);
    out.add(Arguments.of("charts/infera-operator/templates/NOTES.txt", notesSample()));
    return out.stream();
  }

  /** The InferaDeployment NOTES.txt tells users to apply (a heredoc without template code). */
  static String notesSample() {
    String notes = InstallFiles.text("charts/infera-operator/templates/NOTES.txt");
    int start = notes.indexOf("<<'YAML'\n");
    int end = notes.indexOf("\n     YAML\n", start);
    assertThat(start).as("NOTES.txt has a <<'YAML' heredoc").isPositive();
    assertThat(end).isPositive();
    String body = notes.substring(notes.indexOf('\n', start) + 1, end);
    assertThat(body).doesNotContain("{{");
    return body.replaceAll("(?m)^     ", "") + "\n";
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

  /** One violation of one constraint of the schema, at a path the vLLM sample has. */
  record Breach(String path, String keyword, Consumer<Map<String, Object>> apply) {
    @Override
    public String toString() {
      return path + " " + keyword;
    }
  }

  static Stream<Breach> structuralBreaches() {
    List<Breach> out = new ArrayList<>();
    collect(InstallFiles.map(OPENAPI, "properties", "spec"), List.of("spec"), out);
    assertThat(out).as("constraints found in the CRD").hasSizeGreaterThan(20);
    return out.stream();
  }

  @SuppressWarnings("unchecked")
  private static void collect(Map<String, Object> schema, List<String> path, List<Breach> out) {
    String at = String.join(".", path);
    if (schema.get("required") instanceof List<?> required) {
      for (Object field : required) {
        out.add(
            new Breach(
                at + "." + field,
                "required",
                root -> parent(root, path, true).remove(String.valueOf(field))));
      }
    }
    if (path.size() > 1) {
      constraints(schema, path, out);
    }
    if (schema.get("properties") instanceof Map<?, ?> props) {
      for (var e : ((Map<String, Object>) props).entrySet()) {
        List<String> child = new ArrayList<>(path);
        child.add(e.getKey());
        collect((Map<String, Object>) e.getValue(), child, out);
      }
    }
    if (schema.get("items") instanceof Map<?, ?> items
        && ((Map<String, Object>) items).containsKey("properties")) {
      List<String> child = new ArrayList<>(path);
      child.set(child.size() - 1, child.get(child.size() - 1) + "[0]");
      collect((Map<String, Object>) items, child, out);
    }
  }

  @SuppressWarnings("unchecked")
  private static void constraints(Map<String, Object> s, List<String> path, List<Breach> out) {
    String at = String.join(".", path);
    String field = path.get(path.size() - 1);
    boolean integer = "integer".equals(s.get("type"));
    if (s.get("enum") instanceof List<?>) {
      out.add(new Breach(at, "enum", root -> set(root, path, "not-a-listed-value")));
    }
    if (s.get("pattern") instanceof String p) {
      String bad = "Not Valid!";
      assertThat(Pattern.compile(p).matcher(bad).find()).as(p).isFalse();
      out.add(new Breach(at, "pattern", root -> set(root, path, bad)));
    }
    if (s.get("minimum") instanceof Number min) {
      Object v = integer ? (Object) (min.longValue() - 1) : (Object) (min.doubleValue() - 0.5);
      out.add(new Breach(at, "minimum", root -> set(root, path, v)));
    }
    if (s.get("maximum") instanceof Number max) {
      Object v = integer ? (Object) (max.longValue() + 1) : (Object) (max.doubleValue() + 0.5);
      out.add(new Breach(at, "maximum", root -> set(root, path, v)));
    }
    if (s.get("minLength") instanceof Number n && n.intValue() > 0) {
      out.add(new Breach(at, "minLength", root -> set(root, path, "")));
    }
    if (s.get("maxLength") instanceof Number n) {
      String v = "a".repeat(n.intValue() + 1);
      out.add(new Breach(at, "maxLength", root -> set(root, path, v)));
    }
    if (s.get("minItems") instanceof Number n && n.intValue() > 0) {
      out.add(new Breach(at, "minItems", root -> set(root, path, new ArrayList<>())));
    }
    if (s.get("maxItems") instanceof Number n && field.equals("pools")) {
      out.add(
          new Breach(
              at,
              "maxItems",
              root -> {
                List<Object> pools = new ArrayList<>();
                for (int i = 0; i <= n.intValue(); i++) {
                  Map<String, Object> p = new LinkedHashMap<>();
                  p.put("name", "pool-" + i);
                  pools.add(p);
                }
                set(root, path, pools);
              }));
    }
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

  /** A variant that passes the schema and breaks exactly one CEL rule (by its message). */
  record CelBreach(String rule, String base, Consumer<Map<String, Object>> apply) {
    @Override
    public String toString() {
      return rule;
    }
  }

  @SuppressWarnings("unchecked")
  static List<CelBreach> celBreaches() {
    return List.of(
        new CelBreach(
            "pool names must be unique",
            "sglang-pd.yaml",
            s -> ((Map<String, Object>) pools(s).get(1)).put("name", "prefill")),
        new CelBreach(
            "a prefill pool requires a decode pool and vice versa",
            "sglang-pd.yaml",
            s -> pools(s).remove(1)),
        new CelBreach(
            "pageSize must be a power of two between 1 and 1024",
            "sim.yaml",
            s -> spec(s).put("pageSize", 24)),
        new CelBreach(
            "set either nats.url (an external NATS) or nats.deploy, not both",
            "vllm-mixed.yaml",
            s -> InstallFiles.map(spec(s), "nats").put("url", "nats://nats.messaging:4222")),
        new CelBreach(
            "set either tokenizer.path or tokenizer.hub, not both",
            "sim.yaml",
            s -> InstallFiles.map(spec(s), "router", "tokenizer").put("hub", "Qwen/Qwen3-0.6B")),
        new CelBreach(
            "tokenizer.mode local needs tokenizer.path or tokenizer.hub",
            "sglang-pd.yaml",
            s -> InstallFiles.map(spec(s), "router", "tokenizer").put("mode", "local")),
        new CelBreach(
            "pythonHashSeed must be 'random' or an integer in [0, 4294967295]",
            "sim.yaml",
            s -> spec(s).put("pythonHashSeed", "4294967296")),
        new CelBreach(
            Rules.KV_TRANSFER_ROLE_FITS_POOL_ROLE_MESSAGE,
            "vllm-pd.yaml",
            s -> ((Map<String, Object>) pools(s).get(0)).put("kvTransferRole", "kv_consumer")),
        new CelBreach(
            Rules.KV_TRANSFER_ROLE_VLLM_ONLY_MESSAGE,
            "vllm-pd.yaml",
            s -> spec(s).put("engine", "sglang")),
        new CelBreach(
            Rules.DECODE_RADIX_CACHE_ON_DECODE_MESSAGE,
            "sglang-pd.yaml",
            s -> ((Map<String, Object>) pools(s).get(0)).put("decodeRadixCache", false)),
        new CelBreach(
            Rules.DECODE_RADIX_CACHE_SGLANG_ONLY_MESSAGE,
            "sglang-pd.yaml",
            s -> spec(s).put("engine", "vllm")));
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
    DumperOptions o = new DumperOptions();
    o.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    return new Yaml(o).dump(resource);
  }

  private static Map<String, Object> sample(String file) {
    return InstallFiles.document("config/samples/" + file);
  }

  private static Map<String, Object> vllmSample() {
    return sample("vllm-mixed.yaml");
  }

  private static Map<String, Object> spec(Map<String, Object> root) {
    return InstallFiles.map(root, "spec");
  }

  @SuppressWarnings("unchecked")
  private static List<Object> pools(Map<String, Object> root) {
    return (List<Object>) spec(root).get("pools");
  }

  /** The object holding the last path element, created on the way when {@code create}. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> parent(
      Map<String, Object> root, List<String> path, boolean whole) {
    Map<String, Object> cur = root;
    List<String> walk = whole ? path : path.subList(0, path.size() - 1);
    for (String step : walk) {
      String key = step.endsWith("[0]") ? step.substring(0, step.length() - 3) : step;
      Object next = cur.get(key);
      if (step.endsWith("[0]")) {
        cur = (Map<String, Object>) ((List<Object>) next).get(0);
      } else {
        if (next == null) {
          next = new LinkedHashMap<String, Object>();
          cur.put(key, next);
        }
        cur = (Map<String, Object>) next;
      }
    }
    return cur;
  }

  private static void set(Map<String, Object> root, List<String> path, Object value) {
    String last = path.get(path.size() - 1);
    parent(root, path, false).put(last, value);
  }
}
