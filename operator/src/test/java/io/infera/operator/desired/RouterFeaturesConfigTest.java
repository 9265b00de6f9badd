package io.infera.operator.desired;

import static io.infera.operator.testing.Fixtures.idep;
import static org.assertj.core.api.Assertions.assertThat;

import io.infera.operator.api.v1alpha1.DecodeInputDemand;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.MultimodalSpec;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.api.v1alpha1.PrefillGuardRelease;
import io.infera.operator.api.v1alpha1.SessionAffinityMode;
import io.infera.operator.api.v1alpha1.SessionAffinitySpec;
import io.infera.operator.render.ResourceParser;
import io.infera.operator.testing.Fixtures;
import io.infera.operator.testing.RouterKeys;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * {@code spec.router.decodeInputDemand}, {@code decodeRequestWeight}, {@code prefillGuardRelease},
 * {@code sessionAffinity.*} and {@code multimodal.*} reach the RouterConfig's {@code policy} only
 * when set to other than the router's default: unset (or at the default) the key is left out, so a
 * resource not using them renders what the previous router accepts.
 */
class RouterFeaturesConfigTest {

  private static final Set<String> NEW_KEYS =
      Set.of(
          "policy.decodeInputDemand",
          "policy.decodeRequestWeight",
          "policy.prefillGuardRelease",
          "policy.sessionAffinity",
          "policy.multimodal");

  @Test
  void unsetTheKeysAreLeftOut() {
    for (InferaDeployment idep :
        List.of(
            idep(Engine.VLLM, PoolRole.MIXED),
            idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE),
            idep(Engine.SGLANG, PoolRole.PREFILL, PoolRole.DECODE))) {
      Map<String, Object> policy = policy(idep);
      assertThat(policy).containsOnlyKeys("name");
    }
    // An empty sessionAffinity or multimodal object writes no section either.
    InferaDeployment empty = idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
    empty.getSpec().getRouter().setSessionAffinity(new SessionAffinitySpec());
    empty.getSpec().getRouter().setMultimodal(new MultimodalSpec());
    assertThat(policy(empty)).containsOnlyKeys("name");
    assertThat(DesiredRouterConfig.yaml(Fixtures.fleet(empty).inputs()))
        .isEqualTo(
            DesiredRouterConfig.yaml(
                Fixtures.fleet(idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE)).inputs()));
  }

  @Test
  @SuppressWarnings("unchecked")
  void theRoutersDefaultsAreLeftOut() {
    // The defaults as config/router/reference.yaml states them (the router's
    // RouterConfigReferenceTest ties that file to its ConfigLoader). YAML 1.1 reads off as false.
    Map<String, Object> reference =
        new Yaml().load(Fixtures.read(Fixtures.repoRoot().resolve("config/router/reference.yaml")));
    Map<String, Object> ref = (Map<String, Object>) reference.get("policy");
    Map<String, Object> refAffinity = (Map<String, Object>) ref.get("sessionAffinity");
    Map<String, Object> refMultimodal = (Map<String, Object>) ref.get("multimodal");
    assertThat(ref.get("decodeInputDemand")).isEqualTo(false);
    assertThat(refAffinity.get("mode")).isEqualTo(false);

    InferaDeployment idep = idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
    idep.getSpec().getRouter().setDecodeInputDemand(DecodeInputDemand.OFF);
    idep.getSpec()
        .getRouter()
        .setDecodeRequestWeight(((Number) ref.get("decodeRequestWeight")).doubleValue());
    idep.getSpec()
        .getRouter()
        .setPrefillGuardRelease(
            PrefillGuardRelease.valueOf(
                String.valueOf(ref.get("prefillGuardRelease")).toUpperCase()));
    SessionAffinitySpec a = new SessionAffinitySpec();
    a.setMode(SessionAffinityMode.OFF);
    a.setHeader((String) refAffinity.get("header"));
    a.setMaxSessions(((Number) refAffinity.get("maxSessions")).intValue());
    a.setTtlMs(((Number) refAffinity.get("ttlMs")).longValue());
    a.setMaxKeyBytes(((Number) refAffinity.get("maxKeyBytes")).intValue());
    idep.getSpec().getRouter().setSessionAffinity(a);
    MultimodalSpec m = new MultimodalSpec();
    m.setAffinityEntries(((Number) refMultimodal.get("affinityEntries")).intValue());
    idep.getSpec().getRouter().setMultimodal(m);
    assertThat(policy(idep)).containsOnlyKeys("name");
    // A negative zero weight is the default too.
    idep.getSpec().getRouter().setDecodeRequestWeight(-0.0);
    assertThat(policy(idep)).containsOnlyKeys("name");
  }

  @Test
  @SuppressWarnings("unchecked")
  void eachSetFieldIsWrittenAloneAndRollsTheRouters() {
    String base = hash(idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE));
    List<Change> changes =
        List.of(
            new Change(
                r -> r.getSpec().getRouter().setDecodeInputDemand(DecodeInputDemand.SHADOW),
                Map.of("decodeInputDemand", "shadow")),
            new Change(
                r -> r.getSpec().getRouter().setDecodeInputDemand(DecodeInputDemand.ON),
                Map.of("decodeInputDemand", "on")),
            new Change(
                r -> {
                  r.getSpec().getRouter().setDecodeInputDemand(DecodeInputDemand.ON);
                  r.getSpec().getRouter().setDecodeRequestWeight(1e9);
                },
                Map.of("decodeInputDemand", "on", "decodeRequestWeight", 1e9)),
            new Change(
                r -> r.getSpec().getRouter().setPrefillGuardRelease(PrefillGuardRelease.COMPLETION),
                Map.of("prefillGuardRelease", "completion")),
            new Change(
                r -> affinity(r).setMode(SessionAffinityMode.PREFILL),
                Map.of("sessionAffinity", Map.of("mode", "prefill"))),
            new Change(
                r -> affinity(r).setMode(SessionAffinityMode.BOTH),
                Map.of("sessionAffinity", Map.of("mode", "both"))),
            new Change(
                r -> affinity(r).setHeader(""), Map.of("sessionAffinity", Map.of("header", ""))),
            new Change(
                r -> affinity(r).setHeader("x-user"),
                Map.of("sessionAffinity", Map.of("header", "x-user"))),
            new Change(
                r -> affinity(r).setMaxSessions(10_000_000),
                Map.of("sessionAffinity", Map.of("maxSessions", 10_000_000))),
            new Change(
                r -> affinity(r).setTtlMs(1000L), Map.of("sessionAffinity", Map.of("ttlMs", 1000))),
            new Change(
                r -> affinity(r).setMaxKeyBytes(1),
                Map.of("sessionAffinity", Map.of("maxKeyBytes", 1))),
            new Change(
                r -> {
                  r.getSpec().getRouter().setMultimodal(new MultimodalSpec());
                  r.getSpec().getRouter().getMultimodal().setAffinityEntries(1_000_000);
                },
                Map.of("multimodal", Map.of("affinityEntries", 1_000_000))));
    Set<String> accepted =
        RouterKeys.accepted(
            Fixtures.read(Fixtures.repoRoot().resolve("config/router/reference.yaml")));
    for (int k = 0; k < changes.size(); k++) {
      InferaDeployment changed = idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
      changes.get(k).apply().accept(changed);
      Map<String, Object> policy = policy(changed);
      assertThat(policy).as("change #" + k).containsEntry("name", "kv-aware");
      policy.remove("name");
      assertThat(policy).as("change #" + k).isEqualTo(changes.get(k).written());
      assertThat(hash(changed)).as("change #" + k).isNotEqualTo(base);
      Map<String, Object> doc = DesiredRouterConfig.document(Fixtures.fleet(changed).inputs());
      assertThat(accepted).containsAll(RouterKeys.used(doc));
      // Only the new keys are ones the previous router does not know: it refuses them, which
      // docs/contracts.md ("Version skew") says.
      Set<String> unknown = new TreeSet<>(RouterKeys.used(doc));
      unknown.removeAll(RouterKeys.previous());
      assertThat(unknown)
          .allSatisfy(key -> assertThat(NEW_KEYS).anySatisfy(n -> assertThat(key).startsWith(n)));
    }
  }

  @Test
  void quotedOnAndOffParseFromYaml() throws Exception {
    InferaDeployment idep =
        ResourceParser.parse(
            "apiVersion: infera.io/v1alpha1\nkind: InferaDeployment\nmetadata: {name: demo}\n"
                + "spec:\n  model: m\n  router:\n    decodeInputDemand: \"on\"\n"
                + "    sessionAffinity: {mode: \"off\", ttlMs: 60000}\n"
                + "  pools: [{name: prefill, role: prefill}, {name: decode, role: decode}]\n",
            "test");
    assertThat(idep.getSpec().getRouter().getDecodeInputDemand()).isEqualTo(DecodeInputDemand.ON);
    assertThat(idep.getSpec().getRouter().getSessionAffinity().getMode())
        .isEqualTo(SessionAffinityMode.OFF);
    Map<String, Object> policy = policy(idep);
    assertThat(policy).containsEntry("decodeInputDemand", "on");
    assertThat(policy).containsEntry("sessionAffinity", Map.of("ttlMs", 60000));
  }

  /**
   * One field set, and the keys then written under {@code policy} beside {@code name} (as the YAML
   * reads back: small integers are Integers).
   */
  private record Change(Consumer<InferaDeployment> apply, Map<String, Object> written) {}

  private static SessionAffinitySpec affinity(InferaDeployment i) {
    if (i.getSpec().getRouter().getSessionAffinity() == null) {
      i.getSpec().getRouter().setSessionAffinity(new SessionAffinitySpec());
    }
    return i.getSpec().getRouter().getSessionAffinity();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> policy(InferaDeployment idep) {
    if (idep.getMetadata().getUid() == null) {
      idep.getMetadata().setUid(Fixtures.UID);
    }
    Object doc = new Yaml().load(DesiredRouterConfig.yaml(Fixtures.fleet(idep).inputs()));
    return (Map<String, Object>) ((Map<String, Object>) doc).get("policy");
  }

  private static String hash(InferaDeployment idep) {
    return DesiredRouterConfig.hash(Fixtures.fleet(idep).inputs());
  }
}
