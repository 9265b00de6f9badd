package io.infera.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.infera.operator.api.v1alpha1.Rules;
import io.infera.operator.install.InstallTools;
import io.infera.operator.install.SampleBreaches;
import io.infera.operator.install.SampleBreaches.Breach;
import io.infera.operator.install.SampleBreaches.CelBreach;
import io.infera.operator.render.Renderer;
import io.infera.operator.testing.KubeControlPlane;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every schema breach and every CEL-rule breach {@code SamplesTest} generates is refused by the
 * real API server with a message naming the field (and, for CEL, the rule's message); every sample
 * is accepted and read back unchanged apart from the schema's defaults; unknown fields are pruned,
 * or refused by {@code kubectl apply}'s strict field validation.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchemaRefusalIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  private KubeControlPlane cluster;
  private KubernetesClient client;
  private String ns;
  private final AtomicInteger names = new AtomicInteger();

  @BeforeAll
  void setUp() {
    cluster = KubeControlPlane.shared();
    Kubectl.installCrd(cluster);
    client = cluster.admin();
    ns = cluster.newNamespace("schema");
  }

  @AfterAll
  void tearDown() {
    if (client != null) {
      client.close();
    }
  }

  static Stream<Breach> structuralBreaches() {
    return SampleBreaches.structural().stream();
  }

  static Stream<CelBreach> celBreaches() {
    return SampleBreaches.cel().stream();
  }

  /** What the server says for each keyword (apiextensions' validation messages). */
  private static final Map<String, String> KEYWORD_MESSAGE =
      Map.of(
          "required", "Required value",
          "enum", "Unsupported value: \"not-a-listed-value\"",
          "pattern", "should match",
          "minimum", "should be greater than or equal to",
          "maximum", "should be less than or equal to",
          "minLength", "should be at least 1 chars long",
          "maxLength", "Too long",
          "minItems", "should have at least 1 items",
          "maxItems", "Too many");

  @ParameterizedTest(name = "{0}")
  @MethodSource("structuralBreaches")
  void everySchemaBreachIsRefusedNamingTheField(Breach breach) {
    Map<String, Object> variant = SampleBreaches.vllmSample();
    breach.apply().accept(variant);
    String message = refusal(variant);
    assertThat(message)
        .as("the server's message for %s", breach)
        .contains(breach.path() + ":")
        .contains(KEYWORD_MESSAGE.get(breach.keyword()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("celBreaches")
  void everyCelBreachIsRefusedWithTheRulesMessage(CelBreach breach) {
    Map<String, Object> variant = SampleBreaches.sample(breach.base());
    breach.apply().accept(variant);
    String path = SampleBreaches.celRulePaths().get(breach.rule());
    assertThat(path).as("the CRD holds the rule %s", breach.rule()).isNotNull();
    String message = refusal(variant);
    assertThat(message).contains(path).contains(breach.rule());
    assertThat(message)
        .as("a CEL rule never fails to evaluate on a value the schema admits")
        .doesNotContain("evaluating rule")
        .doesNotContain("no such key");
  }

  /**
   * A value the pattern refuses reaches no CEL rule that would fail to evaluate on it: the server
   * reports the pattern alone, not an evaluation error of the rule on the same field.
   */
  @Test
  void aPatternBreachReportsThePatternNotACelEvaluationError() {
    Map<String, Object> variant = SampleBreaches.sample("sim.yaml");
    SampleBreaches.spec(variant).put("pythonHashSeed", "12ab");
    String message = refusal(variant);
    assertThat(message).contains("spec.pythonHashSeed:").contains("should match");
    assertThat(message).doesNotContain("type conversion error").doesNotContain("evaluating rule");
  }

  @Test
  void everySampleIsAcceptedAndReadBackWithOnlyTheSchemasDefaults() {
    Map<String, List<String>> defaulted = new TreeMap<>();
    for (var e : SampleBreaches.samples().entrySet()) {
      Map<String, Object> sample = SampleBreaches.parse(e.getValue());
      String name = "sample-" + names.incrementAndGet();
      SampleBreaches.metadata(sample).put("name", name);
      Map<String, Object> stored = applied(e.getKey(), sample, name);
      List<String> added = new ArrayList<>();
      compare(
          e.getKey(),
          "spec",
          SampleBreaches.numbersNormalized(SampleBreaches.spec(sample)),
          SampleBreaches.numbersNormalized(stored.get("spec")),
          added);
      defaulted.put(e.getKey(), added);
    }
    System.err.println("SchemaRefusalIT: fields the server defaulted per sample: " + defaulted);
    // Every sample leaves something to the defaults, and the server fills in what the CRD says.
    assertThat(defaulted.get("config/samples/sim.yaml"))
        .contains(
            "spec.networkPolicy={enabled=true}",
            "spec.pools[0].role=mixed",
            "spec.pools[0].dataParallelSize=1",
            "spec.pools[0].resources.gpu=0",
            "spec.nats.stream=INFERA_KV_EVENTS")
        // No default seed any more: the operator generates one per deployment.
        .noneMatch(f -> f.startsWith("spec.pythonHashSeed"));
  }

  /**
   * {@code expected} (the sample) must be contained in {@code actual} (the stored object)
   * unchanged; whatever the server added must be a {@code default} of the schema at that place.
   */
  @SuppressWarnings("unchecked")
  private void compare(
      String source, String at, Object expected, Object actual, List<String> added) {
    if (expected instanceof Map<?, ?> em && actual instanceof Map<?, ?> am) {
      for (var k : em.keySet()) {
        assertThat(am.containsKey(k)).as("%s: %s.%s kept", source, at, k).isTrue();
        compare(source, at + "." + k, em.get(k), am.get(k), added);
      }
      for (var k : am.keySet()) {
        if (!em.containsKey(k)) {
          Object def = defaultAt(at + "." + k);
          assertThat(def)
              .as("%s: the server added %s.%s=%s: a default of the CRD", source, at, k, am.get(k))
              .isNotNull();
          Object value = am.get(k);
          if (def instanceof Map<?, ?> dm && value instanceof Map<?, ?> vm) {
            // An object default: its keys as the CRD says (nested defaults may add more).
            Map<Object, Object> named = new LinkedHashMap<>();
            dm.keySet().forEach(dk -> named.put(dk, vm.get(dk)));
            value = named;
          }
          assertThat(SampleBreaches.numbersNormalized(value))
              .as("%s: %s.%s is the CRD's default", source, at, k)
              .isEqualTo(SampleBreaches.numbersNormalized(def));
          added.add(at + "." + k + "=" + am.get(k));
        }
      }
    } else if (expected instanceof List<?> el && actual instanceof List<?> al) {
      assertThat(al).as("%s: %s items", source, at).hasSameSizeAs(el);
      for (int i = 0; i < el.size(); i++) {
        compare(source, at + "[" + i + "]", el.get(i), al.get(i), added);
      }
    } else {
      assertThat(actual).as("%s: %s unchanged", source, at).isEqualTo(expected);
    }
  }

  /**
   * The {@code default} of the schema at {@code path} (e.g. {@code spec.pools[0].role}), or null.
   */
  @SuppressWarnings("unchecked")
  private static Object defaultAt(String path) {
    Map<String, Object> s = SampleBreaches.OPENAPI;
    for (String step : path.split("\\.")) {
      String key = step.replaceAll("\\[\\d+]$", "");
      s = (Map<String, Object>) ((Map<String, Object>) s.get("properties")).get(key);
      if (s == null) {
        return null;
      }
      if (!key.equals(step)) {
        s = (Map<String, Object>) s.get("items");
      }
    }
    return s.get("default");
  }

  /** Values at the edge of a CEL rule or a range that the server and render must both admit. */
  static Stream<Arguments> admittedBoundaries() {
    return Stream.of(
        Arguments.of(
            "decodeRequestWeight 0 (an integer) without demand",
            router(r -> r.put("decodeRequestWeight", 0))),
        Arguments.of(
            "decodeRequestWeight 0.0 with demand off",
            router(
                r -> {
                  r.put("decodeRequestWeight", 0.0);
                  r.put("decodeInputDemand", "off");
                })),
        Arguments.of(
            "decodeRequestWeight 0.5 with demand shadow",
            router(
                r -> {
                  r.put("decodeRequestWeight", 0.5);
                  r.put("decodeInputDemand", "shadow");
                })),
        Arguments.of(
            "decodeRequestWeight at its maximum 1e9 with demand on",
            router(
                r -> {
                  r.put("decodeRequestWeight", 1e9);
                  r.put("decodeInputDemand", "on");
                })),
        Arguments.of(
            "sessionAffinity at its bounds",
            router(
                r ->
                    r.put(
                        "sessionAffinity",
                        new LinkedHashMap<>(
                            Map.of(
                                "header", "",
                                "maxSessions", Rules.MAX_SESSION_AFFINITY_SESSIONS,
                                "ttlMs", Rules.MIN_SESSION_AFFINITY_TTL_MS,
                                "maxKeyBytes", Rules.MAX_SESSION_AFFINITY_KEY_BYTES))))));
  }

  private static Map<String, Object> router(Consumer<Map<String, Object>> edit) {
    Map<String, Object> variant = SampleBreaches.sample("vllm-pd.yaml");
    @SuppressWarnings("unchecked")
    Map<String, Object> router =
        (Map<String, Object>)
            SampleBreaches.spec(variant).computeIfAbsent("router", k -> new LinkedHashMap<>());
    edit.accept(router);
    return variant;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("admittedBoundaries")
  void boundaryValuesAreAdmittedByTheServerAndByRender(String what, Map<String, Object> variant) {
    String name = "edge-" + names.incrementAndGet();
    Map<String, Object> stored = applied(what, variant, name);
    // Stored as sent; whatever the server added is a default of the CRD.
    compare(
        what,
        "spec",
        SampleBreaches.numbersNormalized(SampleBreaches.spec(variant)),
        SampleBreaches.numbersNormalized(stored.get("spec")),
        new ArrayList<>());
    Renderer.Result rendered =
        Renderer.render(SampleBreaches.yaml(variant), name, Renderer.Format.YAML);
    assertThat(rendered).as(what + ": " + rendered).isInstanceOf(Renderer.Result.Rendered.class);
  }

  // ------------------------------------------------------------------ unknown fields

  /**
   * The CRD does not preserve unknown fields: a client without field validation (the operator's
   * fabric8 client) gets them pruned with a warning; {@code kubectl apply} validates strictly and
   * is refused; {@code --validate=warn} prunes; {@code render} refuses them as a parse error.
   */
  @Test
  void unknownFieldsArePrunedOrRefusedStrictly() throws Exception {
    Map<String, Object> variant = SampleBreaches.sample("sim.yaml");
    SampleBreaches.spec(variant).put("replicaz", 3);
    @SuppressWarnings("unchecked")
    Map<String, Object> pool =
        (Map<String, Object>) ((List<Object>) SampleBreaches.spec(variant).get("pools")).get(0);
    pool.put("gpus", 1);

    String strict = "unknown-strict";
    SampleBreaches.metadata(variant).put("name", strict);
    InstallTools.Run r =
        Kubectl.run(
            cluster,
            "apply",
            "-f",
            Kubectl.file("unknown", Kubectl.inNamespace(variant, ns)).toString());
    assertThat(r.exitCode()).as(r.describe()).isNotZero();
    assertThat(r.stderr())
        .contains("strict decoding error")
        .contains("unknown field \"spec.replicaz\"")
        .contains("unknown field \"spec.pools[0].gpus\"");

    String warn = "unknown-warn";
    SampleBreaches.metadata(variant).put("name", warn);
    r =
        Kubectl.run(
            cluster,
            "apply",
            "--validate=warn",
            "-f",
            Kubectl.file("unknown", Kubectl.inNamespace(variant, ns)).toString());
    assertThat(r.exitCode()).as(r.describe()).isZero();
    assertThat(Kubectl.warnings(r))
        .contains(
            "Warning: unknown field \"spec.replicaz\"",
            "Warning: unknown field \"spec.pools[0].gpus\"");
    assertPruned(warn);

    String plain = "unknown-client";
    SampleBreaches.metadata(variant).put("name", plain);
    crs().resource(resource(variant)).create();
    assertPruned(plain);

    Renderer.Result rendered =
        Renderer.render(SampleBreaches.yaml(variant), "variant", Renderer.Format.YAML);
    assertThat(rendered).isInstanceOf(Renderer.Result.Rejected.class);
    // render stops at the first unknown field; the server lists them all.
    assertThat(((Renderer.Result.Rejected) rendered).message())
        .contains("spec.pools[0].gpus: unknown field");
  }

  @SuppressWarnings("unchecked")
  private void assertPruned(String name) {
    Map<String, Object> spec = (Map<String, Object>) stored(name).get("spec");
    assertThat(spec).doesNotContainKey("replicaz");
    assertThat((Map<String, Object>) ((List<Object>) spec.get("pools")).get(0))
        .doesNotContainKey("gpus")
        .containsEntry("name", "workers");
  }

  /**
   * Numbers and nulls as kubectl sends them: an integral float is an integer (Go's JSON encoder
   * drops the fraction), an explicit null of a non-nullable field is dropped, an unquoted fraction
   * where the CRD says int-or-string is refused. Render agrees with the server on each.
   */
  @Test
  @SuppressWarnings("unchecked")
  void integralFloatsNullsAndFractionalQuantitiesAsTheServerTreatsThem() {
    Map<String, Object> variant = SampleBreaches.sample("sim.yaml");
    SampleBreaches.metadata(variant).put("name", "numbers");
    SampleBreaches.spec(variant).put("pageSize", 32.0);
    SampleBreaches.spec(variant).put("image", null);
    InstallTools.Run r =
        Kubectl.run(
            cluster,
            "apply",
            "-f",
            Kubectl.file("numbers", Kubectl.inNamespace(variant, ns)).toString());
    assertThat(r.exitCode()).as(r.describe()).isZero();
    Map<String, Object> spec = (Map<String, Object>) stored("numbers").get("spec");
    assertThat(spec).containsEntry("pageSize", 32).doesNotContainKey("image");
    Renderer.Result rendered =
        Renderer.render(SampleBreaches.yaml(variant), "numbers", Renderer.Format.YAML);
    assertThat(rendered).isInstanceOf(Renderer.Result.Rendered.class);
    assertThat(((Renderer.Result.Rendered) rendered).text()).contains("pageSize: 32");

    Map<String, Object> fraction = SampleBreaches.sample("sim.yaml");
    ((Map<String, Object>) pool0(fraction).get("resources")).put("cpu", 1.5);
    assertThat(refusal(fraction))
        .contains("spec.pools[0].resources.cpu")
        .contains("must be of type integer,string");
    Renderer.Result refused =
        Renderer.render(SampleBreaches.yaml(fraction), "fraction", Renderer.Format.YAML);
    assertThat(refused).isInstanceOf(Renderer.Result.Rejected.class);
    assertThat(((Renderer.Result.Rejected) refused).message())
        .contains("spec.pools[0].resources.cpu: expected an integer or a string");
  }

  // ------------------------------------------------------------------ where the CRD admits more

  /**
   * What the CRD admits and only the operator's own validation refuses (render exits 2; the
   * operator sets Degraded / InvalidSpec and writes no child): the server stores these resources.
   * If one of them starts being refused by the server, move it to the breach cases.
   */
  static Stream<Arguments> admittedByTheCrdOnly() {
    return Stream.of(
        Arguments.of(
            "a CPU that is no quantity",
            "spec.pools[0].resources.cpu",
            (Consumer<Map<String, Object>>)
                s -> pool0(s).put("resources", new LinkedHashMap<>(Map.of("cpu", "lots")))),
        Arguments.of(
            "a resource name too long for the router Service",
            "metadata.name",
            (Consumer<Map<String, Object>>)
                s -> SampleBreaches.metadata(s).put("name", "n" + "a".repeat(57))),
        Arguments.of(
            "a pool named like the router's objects",
            "spec.pools[0].name",
            (Consumer<Map<String, Object>>) s -> pool0(s).put("name", "router")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("admittedByTheCrdOnly")
  void whatOnlyTheOperatorRefusesIsStoredByTheServer(
      String what, String field, Consumer<Map<String, Object>> change) {
    Map<String, Object> variant = SampleBreaches.sample("sim.yaml");
    SampleBreaches.metadata(variant).put("name", "admitted-" + names.incrementAndGet());
    change.accept(variant);
    SampleBreaches.metadata(variant).put("namespace", ns);
    crs().resource(resource(variant)).create();
    Renderer.Result rendered =
        Renderer.render(SampleBreaches.yaml(variant), "variant", Renderer.Format.YAML);
    assertThat(rendered).as(what).isInstanceOf(Renderer.Result.Rejected.class);
    assertThat(((Renderer.Result.Rejected) rendered).message()).contains(field);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> pool0(Map<String, Object> s) {
    return (Map<String, Object>) ((List<Object>) SampleBreaches.spec(s).get("pools")).get(0);
  }

  // ------------------------------------------------------------------ helpers

  /**
   * {@code kubectl apply} of {@code variant} as {@code name}, which must succeed without warnings;
   * returns the stored object.
   */
  private Map<String, Object> applied(String what, Map<String, Object> variant, String name) {
    SampleBreaches.metadata(variant).put("name", name);
    InstallTools.Run r =
        Kubectl.run(
            cluster,
            "apply",
            "-f",
            Kubectl.file("apply", Kubectl.inNamespace(variant, ns)).toString());
    assertThat(r.exitCode()).as("%s: %s", what, r.describe()).isZero();
    assertThat(Kubectl.warnings(r)).as("%s: warnings", what).isEmpty();
    return stored(name);
  }

  /** Creates {@code variant} with the operator's client; returns the server's refusal message. */
  private String refusal(Map<String, Object> variant) {
    SampleBreaches.metadata(variant).put("name", "breach-" + names.incrementAndGet());
    SampleBreaches.metadata(variant).put("namespace", ns);
    GenericKubernetesResource r = resource(variant);
    List<String> message = new ArrayList<>();
    assertThatThrownBy(() -> crs().resource(r).create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).as(e.getMessage()).isEqualTo(422);
              message.add(e.getStatus().getMessage());
            });
    return message.get(0);
  }

  private NonNamespaceOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      crs() {
    return client
        .genericKubernetesResources("infera.io/v1alpha1", "InferaDeployment")
        .inNamespace(ns);
  }

  private static GenericKubernetesResource resource(Map<String, Object> map) {
    return JSON.convertValue(map, GenericKubernetesResource.class);
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> stored(String name) {
    GenericKubernetesResource r = crs().withName(name).get();
    assertThat(r).as("stored %s", name).isNotNull();
    return JSON.convertValue(r, Map.class);
  }
}
