package io.infera.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.operator.api.v1alpha1.Rules;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The valid samples and one invalid variant per constraint of the CRD: a breach of every schema
 * constraint (required, enum, pattern, bounds, lengths, items) and of every CEL rule. Shared by
 * {@link SamplesTest} (our own schema check and {@code SpecValidator}) and the ITs that send the
 * same variants to a real API server.
 */
public final class SampleBreaches {

  /** The CRD's {@code openAPIV3Schema} (one version). */
  public static final Map<String, Object> OPENAPI = openApiSchema();

  private SampleBreaches() {}

  /** One violation of one constraint of the schema, at a path the vLLM sample has. */
  public record Breach(String path, String keyword, Consumer<Map<String, Object>> apply) {
    @Override
    public String toString() {
      return path + " " + keyword;
    }
  }

  /** A variant that passes the schema and breaks exactly one CEL rule (by its message). */
  public record CelBreach(String rule, String base, Consumer<Map<String, Object>> apply) {
    @Override
    public String toString() {
      return rule;
    }
  }

  /** The CRD file every copy ({@code config/crd/bases}, the chart) equals. */
  public static Path crdFile() {
    return InstallFiles.path(InstallFiles.CRD);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> openApiSchema() {
    Map<String, Object> crd = InstallFiles.document(InstallFiles.CRD);
    List<Object> versions = InstallFiles.list(crd, "spec", "versions");
    assertThat(versions).hasSize(1);
    return InstallFiles.map((Map<String, Object>) versions.get(0), "schema", "openAPIV3Schema");
  }

  /**
   * Every sample users are told to apply, by source: {@code config/samples/*.yaml} and the
   * InferaDeployment of the chart's NOTES.txt, as text.
   */
  public static Map<String, String> samples() {
    Map<String, String> out = new LinkedHashMap<>();
    try (Stream<Path> files = Files.list(InstallFiles.path("config/samples"))) {
      files
          .filter(f -> f.toString().endsWith(".yaml"))
          .sorted()
          .forEach(
              f ->
                  out.put(
                      "config/samples/" + f.getFileName(),
                      InstallFiles.text("config/samples/" + f.getFileName())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(out).as("config/samples/*.yaml").hasSizeGreaterThanOrEqualTo(3);
    out.put("charts/infera-operator/templates/NOTES.txt", notesSample());
    return out;
  }

  /** The InferaDeployment NOTES.txt tells users to apply (a heredoc without template code). */
  public static String notesSample() {
    String notes = InstallFiles.text("charts/infera-operator/templates/NOTES.txt");
    int start = notes.indexOf("<<'YAML'\n");
    int end = notes.indexOf("\n     YAML\n", start);
    assertThat(start).as("NOTES.txt has a <<'YAML' heredoc").isPositive();
    assertThat(end).isPositive();
    String body = notes.substring(notes.indexOf('\n', start) + 1, end);
    assertThat(body).doesNotContain("{{");
    return body.replaceAll("(?m)^     ", "") + "\n";
  }

  /** The first document of a YAML text as a mutable map. */
  public static Map<String, Object> parse(String yaml) {
    return InstallFiles.documents(yaml).get(0);
  }

  /** {@code o} with integral numbers as longs: {@code 1.0} and {@code 1} are the same value. */
  public static Object numbersNormalized(Object o) {
    return InstallFiles.numbersNormalized(o);
  }

  // ------------------------------------------------------------------ structural constraints

  /** A breach of every constraint of {@code spec} in the CRD's schema. */
  public static List<Breach> structural() {
    List<Breach> out = new ArrayList<>();
    collect(InstallFiles.map(OPENAPI, "properties", "spec"), List.of("spec"), out);
    assertThat(out).as("constraints found in the CRD").hasSizeGreaterThan(20);
    return out;
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

  // ------------------------------------------------------------------ CEL rules

  /** A breach of every CEL rule of the CRD (SamplesTest checks that none is missing). */
  @SuppressWarnings("unchecked")
  public static List<CelBreach> cel() {
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
            Rules.NATS_EXTERNAL_ONLY_MESSAGE,
            "vllm-mixed.yaml",
            s ->
                InstallFiles.map(spec(s), "nats")
                    .put("auth", Map.of("credsSecret", Map.of("name", "nats-creds")))),
        new CelBreach(
            Rules.NATS_AUTH_ONE_KIND_MESSAGE,
            "sglang-pd.yaml",
            s -> InstallFiles.map(spec(s), "nats").put("auth", Map.of("user", "router"))),
        new CelBreach(
            "set either tokenizer.path or tokenizer.hub, not both",
            "sim.yaml",
            s -> InstallFiles.map(spec(s), "router", "tokenizer").put("hub", "Qwen/Qwen3-0.6B")),
        new CelBreach(
            "tokenizer.mode local needs tokenizer.path or tokenizer.hub",
            "sglang-pd.yaml",
            s -> InstallFiles.map(spec(s), "router", "tokenizer").put("mode", "local")),
        new CelBreach(
            Rules.TOKENIZER_ONE_HUB_SOURCE_MESSAGE,
            "vllm-mixed.yaml",
            s ->
                InstallFiles.map(spec(s), "router", "tokenizer")
                    .put("cache", new java.util.LinkedHashMap<>(Map.of("claimName", "hf-cache")))),
        new CelBreach(
            Rules.TOKENIZER_HUB_OPTIONS_NEED_HUB_MESSAGE,
            "sim.yaml",
            s -> InstallFiles.map(spec(s), "router", "tokenizer").put("revision", "main")),
        new CelBreach(
            Rules.SUB_PATH_RELATIVE_MESSAGE,
            "vllm-pd.yaml",
            s ->
                InstallFiles.map(spec(s), "router", "tokenizer")
                    .put(
                        "cache",
                        new java.util.LinkedHashMap<>(
                            Map.of("claimName", "hf-cache", "subPath", "models/../../etc")))),
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
            s -> spec(s).put("engine", "vllm")),
        new CelBreach(
            Rules.ATOM_ONE_DATA_PARALLEL_RANK_MESSAGE,
            "atom-pd.yaml",
            s -> ((Map<String, Object>) pools(s).get(1)).put("dataParallelSize", 2)),
        new CelBreach(
            Rules.ATOM_LOCAL_TOKENIZER_MESSAGE,
            "atom-pd.yaml",
            s -> InstallFiles.map(spec(s), "router").remove("tokenizer")),
        new CelBreach(
            Rules.DECODE_INPUT_DEMAND_KV_AWARE_MESSAGE,
            "vllm-pd.yaml",
            s -> {
              InstallFiles.map(spec(s), "router").put("policy", "least-loaded");
              InstallFiles.map(spec(s), "router").put("decodeInputDemand", "shadow");
            }),
        new CelBreach(
            Rules.DECODE_REQUEST_WEIGHT_NEEDS_DEMAND_MESSAGE,
            "vllm-pd.yaml",
            s -> InstallFiles.map(spec(s), "router").put("decodeRequestWeight", 64.0)));
  }

  /**
   * Every CEL rule's message with the field path it sits at, as the API server names it ({@code
   * spec.pools[} for a rule on the pools' items: the server appends the index).
   */
  public static Map<String, String> celRulePaths() {
    Map<String, String> out = new LinkedHashMap<>();
    celPaths(OPENAPI, "", out);
    return out;
  }

  @SuppressWarnings("unchecked")
  private static void celPaths(Map<String, Object> schema, String at, Map<String, String> out) {
    if (schema.get("x-kubernetes-validations") instanceof List<?> rules) {
      for (Object r : rules) {
        out.put(String.valueOf(((Map<String, Object>) r).get("message")), at);
      }
    }
    if (schema.get("properties") instanceof Map<?, ?> props) {
      for (var e : ((Map<String, Object>) props).entrySet()) {
        celPaths(
            (Map<String, Object>) e.getValue(),
            at.isEmpty() || at.endsWith("[") ? at + e.getKey() : at + "." + e.getKey(),
            out);
      }
    }
    if (schema.get("items") instanceof Map<?, ?> items) {
      celPaths((Map<String, Object>) items, at + "[", out);
    }
  }

  // ------------------------------------------------------------------ helpers

  /** A sample under {@code config/samples/}, freshly read (callers mutate it). */
  public static Map<String, Object> sample(String file) {
    return InstallFiles.document("config/samples/" + file);
  }

  /** The sample every structural breach starts from. */
  public static Map<String, Object> vllmSample() {
    return sample("vllm-mixed.yaml");
  }

  /** {@code resource} as block-style YAML. */
  public static String yaml(Map<String, Object> resource) {
    DumperOptions o = new DumperOptions();
    o.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    return new Yaml(o).dump(resource);
  }

  /** {@code spec} of a resource. */
  public static Map<String, Object> spec(Map<String, Object> root) {
    return InstallFiles.map(root, "spec");
  }

  /** {@code metadata} of a resource. */
  public static Map<String, Object> metadata(Map<String, Object> root) {
    return InstallFiles.map(root, "metadata");
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
