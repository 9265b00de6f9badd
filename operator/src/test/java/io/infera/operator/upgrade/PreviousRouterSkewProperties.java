package io.infera.operator.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.desired.BuildResult;
import io.infera.operator.desired.DesiredFleet;
import io.infera.operator.desired.DesiredRouterConfig;
import io.infera.operator.render.ResourceParser;
import io.infera.operator.testing.Fixtures;
import io.infera.operator.testing.Previous;
import io.infera.operator.testing.RouterKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Builders;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.yaml.snakeyaml.Yaml;

/**
 * For resources the previous release's CRD accepts (so they use no newer feature) with every
 * router-relevant setting varied — engine, page size, policy and weights, tokenizer source or
 * engine mode, NATS deployed or external, pool roles, data-parallel sizes — the RouterConfig this
 * operator writes uses only keys the previous router accepts.
 */
class PreviousRouterSkewProperties {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> PREVIOUS_KEYS = RouterKeys.previous();
  private static final Schema PREVIOUS_SCHEMA = previousSchema();

  @Property(tries = 150)
  void aResourceThePreviousCrdAcceptsGetsOnlyKeysThePreviousRouterKnows(
      @ForAll("resources") Map<String, Object> resource) throws Exception {
    Assume.that(PREVIOUS_SCHEMA.validate(JSON.valueToTree(resource)).isEmpty());
    InferaDeployment idep = ResourceParser.parse(new Yaml().dump(resource), "generated");
    idep.getMetadata().setUid(Fixtures.UID);
    BuildResult built = DesiredFleet.build(idep);
    // Combinations the validator refuses (say, a prefill pool without a decode one) render nothing.
    Assume.that(built instanceof BuildResult.Built);
    Map<String, Object> doc =
        DesiredRouterConfig.document(((BuildResult.Built) built).fleet().inputs());
    Set<String> unknown = new TreeSet<>(RouterKeys.used(doc));
    unknown.removeAll(PREVIOUS_KEYS);
    assertThat(unknown).as("keys the previous router refuses, for %s", resource).isEmpty();
  }

  @Example
  void mostGeneratedResourcesAreValidForBothReleases() throws Exception {
    // Guards the property above: if the generator drifted into resources that are all refused,
    // the property would assume its way out of checking anything.
    List<Map<String, Object>> sample = resources().sampleStream().limit(100).toList();
    int valid = 0;
    for (Map<String, Object> r : sample) {
      if (PREVIOUS_SCHEMA.validate(JSON.valueToTree(r)).isEmpty()) {
        InferaDeployment idep = ResourceParser.parse(new Yaml().dump(r), "generated");
        idep.getMetadata().setUid(Fixtures.UID);
        valid += DesiredFleet.build(idep) instanceof BuildResult.Built ? 1 : 0;
      }
    }
    assertThat(valid).as("valid resources among 100 generated").isGreaterThan(50);
  }

  @Provide
  Arbitrary<Map<String, Object>> resources() {
    Arbitrary<Map<String, Object>> tokenizer =
        Arbitraries.oneOf(
            Arbitraries.of("builtin:qwen3", "/models/qwen3").map(p -> map("path", p)),
            Arbitraries.just(map("hub", "Qwen/Qwen3-0.6B")),
            Arbitraries.just(map("mode", "engine")));
    Arbitrary<Map<String, Object>> router =
        Builders.withBuilder(LinkedHashMap<String, Object>::new)
            .use(Arbitraries.integers().between(1, 4))
            .in((m, r) -> put(m, "replicas", r))
            .use(Arbitraries.of("kv-aware", "approx-prefix", "least-loaded", "round-robin"))
            .in((m, p) -> put(m, "policy", p))
            .use(weight().injectNull(0.5))
            .in((m, w) -> put(m, "overlapWeight", w))
            .use(weight().injectNull(0.5))
            .in((m, w) -> put(m, "prefillOverlapWeight", w))
            .use(weight().injectNull(0.5))
            .in((m, w) -> put(m, "decodeOverlapWeight", w))
            .use(tokenizer)
            .in((m, t) -> put(m, "tokenizer", t))
            .build(m -> (Map<String, Object>) m);
    Arbitrary<Map<String, Object>> nats =
        Arbitraries.oneOf(
            Arbitraries.just(map("deploy", map("storage", "1Gi"))),
            Arbitraries.just(map("url", "nats://nats.messaging.svc:4222")));
    Arbitrary<List<Object>> pools =
        Arbitraries.oneOf(
            pool("mixed").list().ofSize(1).map(l -> (List<Object>) new ArrayList<Object>(l)),
            Arbitraries.integers()
                .between(1, 4)
                .flatMap(
                    dp ->
                        Arbitraries.just(
                            (List<Object>)
                                new ArrayList<Object>(
                                    List.of(poolOf("prefill", dp), poolOf("decode", dp))))));
    return Builders.withBuilder(LinkedHashMap<String, Object>::new)
        .use(Arbitraries.of("vllm", "sglang", "sim"))
        .in((m, e) -> put(m, "engine", e))
        .use(Arbitraries.of(16, 32, 64))
        .in((m, p) -> put(m, "pageSize", p))
        .use(router)
        .in((m, r) -> put(m, "router", r))
        .use(nats)
        .in((m, n) -> put(m, "nats", n))
        .use(pools)
        .in((m, p) -> put(m, "pools", p))
        .build(
            spec -> {
              spec.put("model", "Qwen/Qwen3-0.6B");
              Map<String, Object> r = new LinkedHashMap<>();
              r.put("apiVersion", "infera.io/v1alpha1");
              r.put("kind", "InferaDeployment");
              r.put("metadata", map("name", "gen", "namespace", "default"));
              r.put("spec", spec);
              return r;
            });
  }

  private static Arbitrary<Double> weight() {
    return Arbitraries.of(0.0, 0.5, 1.0, 2.0, 20.0);
  }

  private static Arbitrary<Map<String, Object>> pool(String role) {
    return Arbitraries.integers().between(1, 4).map(dp -> poolOf(role, dp));
  }

  private static Map<String, Object> poolOf(String role, int dp) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("name", role);
    p.put("role", role);
    p.put("replicas", 1);
    p.put("dataParallelSize", dp);
    p.put("resources", map("gpu", dp));
    return p;
  }

  private static LinkedHashMap<String, Object> put(
      LinkedHashMap<String, Object> m, String key, Object value) {
    if (value != null) {
      m.put(key, value);
    }
    return m;
  }

  private static Map<String, Object> map(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  @SuppressWarnings("unchecked")
  private static Schema previousSchema() {
    Map<String, Object> crd =
        new Yaml()
            .load(Fixtures.read(Previous.dir().resolve("crd/inferadeployments.infera.io-v1.yml")));
    Map<String, Object> spec = (Map<String, Object>) crd.get("spec");
    Map<String, Object> v = (Map<String, Object>) ((List<Object>) spec.get("versions")).get(0);
    Object openApi = ((Map<String, Object>) v.get("schema")).get("openAPIV3Schema");
    return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4)
        .getSchema(JSON.valueToTree(openApi));
  }
}
