package io.infera.operator.desired;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.infera.operator.api.v1alpha1.DecodeInputDemand;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.InferaDeploymentSpec;
import io.infera.operator.api.v1alpha1.MultimodalSpec;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.api.v1alpha1.PrefillGuardRelease;
import io.infera.operator.api.v1alpha1.SessionAffinityMode;
import io.infera.operator.api.v1alpha1.SessionAffinitySpec;
import io.infera.operator.testing.Fixtures;
import io.infera.operator.testing.RouterKeys;
import io.infera.operator.validation.SpecValidator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The RouterConfig the operator writes is the document of (docs/contracts.md, "RouterConfig"): for
 * the deployment the golden file {@code config/router/kubernetes-nats.yaml} describes, the same
 * document.
 */
class RouterConfigContractTest {

  @Test
  void demoDeploymentRendersTheGoldenKubernetesNatsConfig() {
    InferaDeployment idep = new InferaDeployment();
    idep.setMetadata(new ObjectMetaBuilder().withName("demo").withNamespace("default").build());
    InferaDeploymentSpec spec = new InferaDeploymentSpec();
    spec.setModel("Qwen/Qwen3-0.6B");
    spec.setEngine(Engine.VLLM);
    spec.getRouter().getTokenizer().setPath("/models/qwen3");
    spec.getRouter().setPrefillOverlapWeight(20.0);
    spec.getRouter().setDecodeOverlapWeight(2.0);
    spec.setPools(List.of(Fixtures.pool("mixed", PoolRole.MIXED, 1, 1)));
    idep.setSpec(spec);

    String rendered = DesiredRouterConfig.yaml(Fixtures.fleet(idep).inputs());
    Object golden =
        new Yaml()
            .load(Fixtures.read(Fixtures.repoRoot().resolve("config/router/kubernetes-nats.yaml")));
    Object actual = new Yaml().load(rendered);
    assertThat(actual).isEqualTo(golden);
  }

  @Test
  void routingFeaturesRenderTheGoldenPdFeaturesConfig() {
    InferaDeployment idep = new InferaDeployment();
    idep.setMetadata(new ObjectMetaBuilder().withName("demo").withNamespace("default").build());
    InferaDeploymentSpec spec = new InferaDeploymentSpec();
    spec.setModel("Qwen/Qwen3-0.6B");
    spec.setEngine(Engine.VLLM);
    spec.getRouter().getTokenizer().setPath("/models/qwen3");
    spec.getRouter().setDecodeInputDemand(DecodeInputDemand.ON);
    spec.getRouter().setDecodeRequestWeight(64.0);
    spec.getRouter().setPrefillGuardRelease(PrefillGuardRelease.COMPLETION);
    SessionAffinitySpec affinity = new SessionAffinitySpec();
    affinity.setMode(SessionAffinityMode.BOTH);
    affinity.setHeader("x-conversation-id");
    affinity.setMaxSessions(50_000);
    affinity.setTtlMs(600_000L);
    affinity.setMaxKeyBytes(128);
    spec.getRouter().setSessionAffinity(affinity);
    MultimodalSpec multimodal = new MultimodalSpec();
    multimodal.setAffinityEntries(4096);
    spec.getRouter().setMultimodal(multimodal);
    spec.setPools(
        List.of(
            Fixtures.pool("prefill", PoolRole.PREFILL, 1, 1),
            Fixtures.pool("decode", PoolRole.DECODE, 1, 1)));
    idep.setSpec(spec);
    assertThat(SpecValidator.validate(idep)).isEmpty();

    // The router's ConfigLoaderTest parses every file of config/router/, this one included.
    String rendered = DesiredRouterConfig.yaml(Fixtures.fleet(idep).inputs());
    Object golden =
        new Yaml()
            .load(
                Fixtures.read(
                    Fixtures.repoRoot().resolve("config/router/kubernetes-nats-pd-features.yaml")));
    assertThat((Object) new Yaml().load(rendered)).isEqualTo(golden);
  }

  @Test
  void onlyKeysTheRoutersConfigLoaderAcceptsAreWritten() {
    // The router's keys, from its reference document (RouterConfigReferenceTest in the router
    // proves that names every key its ConfigLoader reads).
    Set<String> accepted =
        RouterKeys.accepted(
            Fixtures.read(Fixtures.repoRoot().resolve("config/router/reference.yaml")));
    assertThat(accepted).contains("discovery.pools[].dpSize", "limits.retries", "tokenizer.hub");
    for (InferaDeployment idep :
        List.of(
            Fixtures.idep(Engine.VLLM, PoolRole.MIXED),
            Fixtures.idep(Engine.SGLANG, PoolRole.PREFILL, PoolRole.DECODE),
            Fixtures.idep(Engine.SIM, PoolRole.MIXED))) {
      idep.getSpec().getRouter().setPrefillOverlapWeight(3.0);
      idep.getSpec().getRouter().getTokenizer().setHub("Qwen/Qwen3-0.6B");
      idep.getSpec().getRouter().getTokenizer().setRevision("v1.0");
      idep.getSpec().getRouter().setDecodeInputDemand(DecodeInputDemand.SHADOW);
      idep.getSpec().getRouter().setDecodeRequestWeight(8.0);
      idep.getSpec().getRouter().setPrefillGuardRelease(PrefillGuardRelease.COMPLETION);
      SessionAffinitySpec affinity = new SessionAffinitySpec();
      affinity.setMode(SessionAffinityMode.PREFILL);
      affinity.setHeader("");
      affinity.setMaxSessions(1);
      affinity.setTtlMs(1000L);
      affinity.setMaxKeyBytes(4096);
      idep.getSpec().getRouter().setSessionAffinity(affinity);
      MultimodalSpec multimodal = new MultimodalSpec();
      multimodal.setAffinityEntries(1);
      idep.getSpec().getRouter().setMultimodal(multimodal);
      Map<String, Object> doc = DesiredRouterConfig.document(Fixtures.fleet(idep).inputs());
      assertThat(accepted).containsAll(RouterKeys.used(doc));
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> pools =
          (List<Map<String, Object>>) ((Map<String, Object>) doc.get("discovery")).get("pools");
      for (Map<String, Object> p : pools) {
        assertThat(p.get("engine")).isIn("vllm", "sglang");
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> nats =
          (Map<String, Object>) ((Map<String, Object>) doc.get("events")).get("nats");
      assertThat(nats).containsOnlyKeys("url", "stream", "subjectPrefix", "snapshotBucket");
    }
  }

  @Test
  void theKeyExtractionSeesListItemsAndCommentedOutKeys() {
    // Guards RouterKeys: a key of a list item, a commented-out optional key, and prose comments.
    Set<String> keys =
        RouterKeys.accepted("a:\n  # b: 1      # optional\n  c: [{d: 1}]\n  # prose, not a key\n");
    assertThat(keys).containsExactly("a", "a.b", "a.c", "a.c[].d");
  }
}
