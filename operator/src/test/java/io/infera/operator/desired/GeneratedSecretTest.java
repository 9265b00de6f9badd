package io.infera.operator.desired;

import static io.infera.operator.testing.Fixtures.fleet;
import static io.infera.operator.testing.Fixtures.idep;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.api.v1alpha1.RouterIndexSpec;
import io.infera.operator.render.Renderer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The generated Secret keeps what it holds; pools read PYTHONHASHSEED from it unless the spec sets
 * one; rendering never contains a generated value; the router's memory grows with its index cap.
 */
class GeneratedSecretTest {

  private static RenderInputs inputs(InferaDeployment idep) {
    return fleet(idep).inputs();
  }

  private static String decoded(Secret s, String key) {
    return new String(Base64.getDecoder().decode(s.getData().get(key)), StandardCharsets.UTF_8);
  }

  @Test
  void newValuesAreGeneratedOnceAndKeptAfterwards() {
    RenderInputs in = inputs(idep(Engine.VLLM, PoolRole.MIXED));
    Secret first = GeneratedSecret.build(in, Map.of(), new Random(1));
    assertThat(first.getMetadata().getName()).isEqualTo("demo-infera");
    assertThat(first.getMetadata().getOwnerReferences()).singleElement();
    assertThat(first.getData())
        .containsOnlyKeys(GeneratedSecret.PYTHON_HASH_SEED_KEY, GeneratedSecret.ADMIN_TOKEN_KEY);
    long seed = Long.parseLong(decoded(first, GeneratedSecret.PYTHON_HASH_SEED_KEY));
    assertThat(seed).isBetween(0L, 4_294_967_295L);
    assertThat(Base64.getUrlDecoder().decode(decoded(first, GeneratedSecret.ADMIN_TOKEN_KEY)))
        .hasSize(32);
    // Another random source, the stored data: nothing changes (no write on resync or restart).
    Secret again = GeneratedSecret.build(in, first.getData(), new Random(2));
    assertThat(again.getData()).isEqualTo(first.getData());
    // A key missing from the stored Secret (an older operator's) is added; the other is kept.
    Secret partial =
        GeneratedSecret.build(
            in,
            Map.of(GeneratedSecret.PYTHON_HASH_SEED_KEY, first.getData().get("pythonHashSeed")),
            new Random(3));
    assertThat(partial.getData().get("pythonHashSeed"))
        .isEqualTo(first.getData().get("pythonHashSeed"));
    assertThat(partial.getData().get("adminToken")).isNotEqualTo(first.getData().get("adminToken"));
    // Fresh values differ between deployments (different random draws).
    assertThat(GeneratedSecret.build(in, Map.of(), new Random(4)).getData())
        .isNotEqualTo(first.getData());
  }

  @Test
  void withoutASpecSeedEveryPoolReadsTheSecretAndRenderPrintsOnlyTheReference() {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
    idep.getSpec().setPythonHashSeed(null);
    Fleet f = fleet(idep);
    for (var d : f.poolDeployments().values()) {
      EnvVar seed = d.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().get(0);
      assertThat(seed.getName()).isEqualTo("PYTHONHASHSEED");
      assertThat(seed.getValue()).isNull();
      assertThat(seed.getValueFrom().getSecretKeyRef().getName()).isEqualTo("demo-infera");
      assertThat(seed.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("pythonHashSeed");
    }
    String rendered = Renderer.write(f.all(), Renderer.Format.YAML);
    assertThat(rendered).contains("secretKeyRef").doesNotContain("kind: Secret");
    assertThat(rendered).isEqualTo(Renderer.write(fleet(idep).all(), Renderer.Format.YAML));
  }

  @Test
  void anExplicitSeedIsKeptAndAPoolOverrideIsRefused() {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.MIXED);
    idep.getSpec().setPythonHashSeed("42");
    EnvVar seed =
        fleet(idep)
            .poolDeployments()
            .get("mixed")
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0)
            .getEnv()
            .get(0);
    assertThat(seed.getValue()).isEqualTo("42");
    InferaDeployment unset = idep(Engine.VLLM, PoolRole.MIXED);
    unset.getSpec().setPythonHashSeed(null);
    unset.getSpec().getPools().get(0).setEnv(List.of(new EnvVar("PYTHONHASHSEED", "0", null)));
    assertThat(io.infera.operator.testing.Fixtures.invalid(unset).message())
        .contains("PYTHONHASHSEED=0", "unset: every pool reads the generated Secret demo-infera");
  }

  @Test
  void workerAndNatsPodsGetNoServiceAccountTokenRoutersDo() {
    Fleet f = fleet(idep(Engine.SGLANG, PoolRole.PREFILL, PoolRole.DECODE));
    f.poolDeployments()
        .values()
        .forEach(
            d ->
                assertThat(d.getSpec().getTemplate().getSpec().getAutomountServiceAccountToken())
                    .isFalse());
    assertThat(
            f.natsStatefulSet()
                .orElseThrow()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getAutomountServiceAccountToken())
        .isFalse();
    assertThat(
            f.routerDeployment()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getAutomountServiceAccountToken())
        .isNotEqualTo(Boolean.FALSE);
    var engine =
        f.poolDeployments().get("prefill").getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(engine.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(engine.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
  }

  @Test
  void theRoutersDefaultMemoryGrowsWithTheIndexCapAndAnExplicitOneWins() {
    assertThat(Defaults.routerMemory(null, 1)).isEqualTo(new Quantity("1Gi"));
    // (448 Mi + 10 M blocks × 144 B) / 0.7 = 2601.9 Mi, rounded up.
    assertThat(Defaults.routerMemory(10_000_000L, 1).toString()).isEqualTo("2602Mi");
    // 65 ranks widen every block by 40 B: (448 Mi + 10 M × 184 B) / 0.7 = 3146.8 Mi.
    assertThat(Defaults.routerMemory(10_000_000L, 64).toString()).isEqualTo("2602Mi");
    assertThat(Defaults.routerMemory(10_000_000L, 65).toString()).isEqualTo("3147Mi");
    // The router's default cap (1.8 M blocks) needs 994 Mi: never below the 1 Gi default.
    assertThat(Defaults.routerMemory(1_800_000L, 1).toString()).isEqualTo("1024Mi");
    assertThat(Defaults.routerMemory(1L, 1).toString()).isEqualTo("1024Mi");
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.MIXED);
    RouterIndexSpec index = new RouterIndexSpec();
    index.setMaxBlocks(10_000_000L);
    idep.getSpec().getRouter().setIndex(index);
    Fleet f = fleet(idep);
    var router = f.routerDeployment().getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(router.getResources().getLimits().get("memory").toString()).isEqualTo("2602Mi");
    assertThat(router.getResources().getRequests().get("memory").toString()).isEqualTo("2602Mi");
    assertThat(f.routerConfigMap().getData().get("router.yaml")).contains("maxBlocks: 10000000");
    idep.getSpec().getRouter().getResources().setMemory(new Quantity("3Gi"));
    router =
        fleet(idep).routerDeployment().getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(router.getResources().getLimits().get("memory")).isEqualTo(new Quantity("3Gi"));
    // Without a cap, the RouterConfig has no index section (a previous router must accept it).
    assertThat(
            fleet(idep(Engine.VLLM, PoolRole.MIXED)).routerConfigMap().getData().get("router.yaml"))
        .doesNotContain("index:");
  }
}
