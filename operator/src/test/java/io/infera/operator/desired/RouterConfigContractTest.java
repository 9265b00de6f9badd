package io.infera.operator.desired;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.InferaDeploymentSpec;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.testing.Fixtures;
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
  void onlyKeysTheRoutersConfigLoaderAcceptsAreWritten() {
    // The router's ConfigLoader allows exactly these keys per section (router/.../ConfigLoader).
    Map<String, Set<String>> allowed =
        Map.of(
            "",
            Set.of(
                "apiVersion",
                "kind",
                "model",
                "loraAdapters",
                "pageSize",
                "tokenizer",
                "policy",
                "events",
                "discovery",
                "limits",
                "listen"),
            "tokenizer",
            Set.of("path", "hub", "mode", "prefixReuse"),
            "policy",
            Set.of("name", "overlapWeight", "prefillOverlapWeight", "decodeOverlapWeight"),
            "events",
            Set.of("transport", "nats", "inprocBus"),
            "discovery",
            Set.of("backend", "namespace", "pools", "workers", "healthIntervalMs"),
            "limits",
            Set.of(
                "maxBodyBytes",
                "retries",
                "connectTimeoutMs",
                "firstByteTimeoutMs",
                "shutdownTimeoutMs",
                "breakerFailures",
                "breakerCooldownMs",
                "breakerMaxCooldownMs"),
            "listen",
            Set.of("host", "port"));
    Set<String> poolKeys =
        Set.of("name", "role", "engine", "service", "port", "zmqPort", "zmqReplayPort", "dpSize");
    for (InferaDeployment idep :
        List.of(
            Fixtures.idep(Engine.VLLM, PoolRole.MIXED),
            Fixtures.idep(Engine.SGLANG, PoolRole.PREFILL, PoolRole.DECODE),
            Fixtures.idep(Engine.SIM, PoolRole.MIXED))) {
      idep.getSpec().getRouter().setPrefillOverlapWeight(3.0);
      idep.getSpec().getRouter().getTokenizer().setHub("Qwen/Qwen3-0.6B");
      Map<String, Object> doc = DesiredRouterConfig.document(Fixtures.fleet(idep).inputs());
      assertThat(allowed.get("")).containsAll(doc.keySet());
      for (var e : doc.entrySet()) {
        if (e.getValue() instanceof Map<?, ?> section) {
          assertThat(allowed.get(e.getKey())).as(e.getKey()).containsAll(keys(section));
        }
      }
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> pools =
          (List<Map<String, Object>>) ((Map<String, Object>) doc.get("discovery")).get("pools");
      for (Map<String, Object> p : pools) {
        assertThat(poolKeys).containsAll(p.keySet());
        assertThat(p.get("engine")).isIn("vllm", "sglang");
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> nats =
          (Map<String, Object>) ((Map<String, Object>) doc.get("events")).get("nats");
      assertThat(nats).containsOnlyKeys("url", "stream", "subjectPrefix", "snapshotBucket");
    }
  }

  private static Set<String> keys(Map<?, ?> m) {
    return m.keySet().stream().map(String::valueOf).collect(java.util.stream.Collectors.toSet());
  }
}
