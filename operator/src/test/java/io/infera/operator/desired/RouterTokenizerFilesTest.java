package io.infera.operator.desired;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.api.v1alpha1.SecretKeyRef;
import io.infera.operator.api.v1alpha1.TokenizerCache;
import io.infera.operator.api.v1alpha1.TokenizerDownload;
import io.infera.operator.api.v1alpha1.TokenizerMode;
import io.infera.operator.api.v1alpha1.TokenizerSpec;
import io.infera.operator.testing.Fixtures;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/** How a hub tokenizer reaches the router pods: a claim mounted read-only, or fetch-tokenizer. */
@SuppressWarnings("unchecked")
class RouterTokenizerFilesTest {

  private static InferaDeployment idep(TokenizerSpec t) {
    InferaDeployment idep = Fixtures.idep(Engine.VLLM, PoolRole.MIXED);
    idep.getSpec().getRouter().setTokenizer(t);
    return idep;
  }

  private static PodSpec pod(InferaDeployment idep) {
    return Fixtures.fleet(idep).routerDeployment().getSpec().getTemplate().getSpec();
  }

  private static Container router(PodSpec pod) {
    return pod.getContainers().get(0);
  }

  private static Optional<VolumeMount> hfMount(Container c) {
    return c.getVolumeMounts().stream().filter(m -> m.getName().equals("hf")).findFirst();
  }

  private static Optional<String> env(Container c, String name) {
    return c.getEnv().stream()
        .filter(e -> e.getName().equals(name))
        .map(EnvVar::getValue)
        .findFirst();
  }

  private static Optional<Volume> hfVolume(PodSpec pod) {
    return pod.getVolumes().stream().filter(v -> v.getName().equals("hf")).findFirst();
  }

  @Test
  void aClaimIsMountedReadOnlyAtHfHomeWithItsSubPathAndNoInitContainer() {
    TokenizerSpec t = new TokenizerSpec();
    t.setHub("Qwen/Qwen3-8B");
    TokenizerCache c = new TokenizerCache();
    c.setClaimName("hf-cache");
    c.setSubPath(".cache/huggingface");
    t.setCache(c);
    PodSpec pod = pod(idep(t));
    assertThat(pod.getInitContainers()).isEmpty();
    assertThat(hfVolume(pod).orElseThrow().getPersistentVolumeClaim().getClaimName())
        .isEqualTo("hf-cache");
    assertThat(hfVolume(pod).orElseThrow().getPersistentVolumeClaim().getReadOnly()).isTrue();
    VolumeMount m = hfMount(router(pod)).orElseThrow();
    assertThat(m.getMountPath()).isEqualTo("/hf");
    assertThat(m.getSubPath()).isEqualTo(".cache/huggingface");
    assertThat(m.getReadOnly()).isTrue();
    assertThat(env(router(pod), "HF_HOME")).hasValue("/hf");
  }

  @Test
  void aHubIdAloneIsDownloadedByTheRouterImageWithoutAToken() {
    TokenizerSpec t = new TokenizerSpec();
    t.setHub("Qwen/Qwen3-8B");
    PodSpec pod = pod(idep(t));
    assertThat(pod.getInitContainers()).hasSize(1);
    Container init = pod.getInitContainers().get(0);
    assertThat(init.getName()).isEqualTo("fetch-tokenizer");
    assertThat(init.getImage()).isEqualTo(router(pod).getImage());
    assertThat(init.getArgs())
        .containsExactly(
            "fetch-tokenizer",
            "--model",
            "Qwen/Qwen3-8B",
            "--revision",
            "main",
            "--dir",
            "/hf/hub");
    assertThat(init.getEnv()).extracting(EnvVar::getName).doesNotContain("HF_TOKEN", "HF_ENDPOINT");
    assertThat(init.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(hfMount(init).orElseThrow().getReadOnly()).isNotEqualTo(Boolean.TRUE);
    assertThat(hfVolume(pod).orElseThrow().getEmptyDir().getSizeLimit().toString())
        .isEqualTo("256Mi");
    assertThat(hfMount(router(pod)).orElseThrow().getReadOnly()).isTrue();
    assertThat(env(router(pod), "HF_HOME")).hasValue("/hf");
  }

  @Test
  void aDownloadTakesItsTokenFromTheSecretItsMirrorAndTheRevision() {
    TokenizerSpec t = new TokenizerSpec();
    t.setHub("meta-llama/Llama-3.1-8B-Instruct");
    t.setRevision("0e9e39f249a16976918f6564b8830bc894c89659");
    TokenizerDownload d = new TokenizerDownload();
    SecretKeyRef ref = new SecretKeyRef();
    ref.setName("hf-token");
    d.setTokenSecret(ref);
    d.setEndpoint("https://hf-mirror.example");
    t.setDownload(d);
    InferaDeployment idep = idep(t);
    Container init = pod(idep).getInitContainers().get(0);
    EnvVar token =
        init.getEnv().stream()
            .filter(e -> e.getName().equals("HF_TOKEN"))
            .findFirst()
            .orElseThrow();
    assertThat(token.getValue()).isNull();
    assertThat(token.getValueFrom().getSecretKeyRef().getName()).isEqualTo("hf-token");
    assertThat(token.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("token");
    assertThat(env(init, "HF_ENDPOINT")).hasValue("https://hf-mirror.example");
    assertThat(init.getArgs())
        .containsSequence("--revision", "0e9e39f249a16976918f6564b8830bc894c89659");
    // The router resolves the same revision in the cache the init container filled.
    Map<String, Object> cfg =
        new Yaml().load(DesiredRouterConfig.yaml(Fixtures.fleet(idep).inputs()));
    assertThat((Map<Object, Object>) cfg.get("tokenizer"))
        .containsEntry("hub", "meta-llama/Llama-3.1-8B-Instruct")
        .containsEntry("revision", "0e9e39f249a16976918f6564b8830bc894c89659");
  }

  @Test
  void aPathOrEngineTokenizerGetsNoCacheVolumeAndNoRevisionKey() {
    TokenizerSpec path = new TokenizerSpec();
    path.setPath("builtin:qwen3");
    TokenizerSpec engine = new TokenizerSpec();
    engine.setHub("Qwen/Qwen3-8B");
    engine.setMode(TokenizerMode.ENGINE);
    for (TokenizerSpec t : new TokenizerSpec[] {path, engine, new TokenizerSpec()}) {
      InferaDeployment idep = idep(t);
      PodSpec pod = pod(idep);
      assertThat(pod.getInitContainers()).isEmpty();
      assertThat(hfVolume(pod)).isEmpty();
      assertThat(env(router(pod), "HF_HOME")).isEmpty();
      Map<String, Object> cfg =
          new Yaml().load(DesiredRouterConfig.yaml(Fixtures.fleet(idep).inputs()));
      assertThat((Map<Object, Object>) cfg.get("tokenizer")).doesNotContainKey("revision");
    }
  }
}
