package io.infera.operator.desired;

import static io.infera.operator.testing.Fixtures.idep;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.KvTransferRole;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.api.v1alpha1.PoolSpec;
import io.infera.operator.api.v1alpha1.Rules;
import io.infera.operator.testing.EngineWheels;
import io.infera.operator.testing.Fixtures;
import io.infera.operator.validation.SpecValidator;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What the operator derives, against the pinned vLLM and SGLang releases' own code: every flag it
 * emits or defends exists in that release, each data-parallel rank binds the ports the relay reads
 * (the engines' own per-rank offset), and the NixlConnector roles are the ones vLLM defines.
 */
class EngineReleasesIT {

  private static JsonNode vllm;
  private static JsonNode sglang;

  @BeforeAll
  static void readTheWheels() throws Exception {
    JsonNode vllmEvents = new ObjectMapper().readTree(EngineCommand.VLLM_KV_EVENTS_CONFIG);
    JsonNode facts =
        EngineWheels.facts(
            EngineWheels.wheel("vllm").toString(),
            EngineWheels.wheel("sglang").toString(),
            Integer.toString(Rules.MAX_DATA_PARALLEL_SIZE),
            vllmEvents.get("endpoint").asText(),
            vllmEvents.get("replay_endpoint").asText());
    vllm = facts.get("vllm");
    sglang = facts.get("sglang");
    // The two engines' configs name the same endpoints (one relay command line for both).
    JsonNode sglangEvents = new ObjectMapper().readTree(EngineCommand.SGLANG_KV_EVENTS_CONFIG);
    assertThat(sglangEvents.get("endpoint")).isEqualTo(vllmEvents.get("endpoint"));
    assertThat(sglangEvents.get("replay_endpoint")).isEqualTo(vllmEvents.get("replay_endpoint"));
  }

  private static Set<String> flags(JsonNode engine) {
    Set<String> out = new TreeSet<>();
    engine.get("flags").forEach(f -> out.add(f.asText()));
    assertThat(out).as("flags read from the wheel").hasSizeGreaterThan(100);
    return out;
  }

  private static List<String> ranks(JsonNode engine, String key) {
    List<String> out = new ArrayList<>();
    engine.get(key).forEach(e -> out.add(e.asText()));
    return out;
  }

  /** The flags (not their values) of the engine command of every pool of {@code idep}. */
  private static Set<String> emitted(InferaDeployment idep) {
    RenderInputs in = Fixtures.fleet(idep).inputs();
    Set<String> out = new TreeSet<>();
    for (RenderInputs.PoolSettings p : in.pools()) {
      for (String a : EngineCommand.of(in, p).args()) {
        if (a.startsWith("-")) {
          out.add(a);
        }
      }
    }
    return out;
  }

  private static InferaDeployment everyFlag(Engine engine) {
    InferaDeployment idep = idep(engine, PoolRole.PREFILL, PoolRole.DECODE);
    for (PoolSpec p : idep.getSpec().getPools()) {
      p.setDataParallelSize(2);
      p.getResources().setGpu(2);
    }
    return idep;
  }

  @ParameterizedTest
  @EnumSource(
      value = Engine.class,
      names = {"VLLM", "SGLANG"})
  void everyFlagTheOperatorEmitsExistsInThePinnedRelease(Engine engine) {
    Set<String> known = flags(engine == Engine.VLLM ? vllm : sglang);
    Set<String> emitted = new TreeSet<>(emitted(everyFlag(engine)));
    emitted.addAll(emitted(idep(engine, PoolRole.MIXED)));
    assertThat(emitted).hasSizeGreaterThan(6);
    assertThat(known).containsAll(emitted);
  }

  @Test
  void everySpellingTheOperatorDefendsExistsInThePinnedRelease() {
    assertThat(flags(vllm))
        .contains(
            "--data-parallel-size",
            "-dp",
            "--data-parallel-size-local",
            "-dpl",
            "--data-parallel-rank",
            "-dpn",
            "--data-parallel-start-rank",
            "-dpr",
            "--no-enable-prompt-tokens-details");
    Set<String> sgl = flags(sglang);
    assertThat(sgl)
        .contains(
            "--dp-size",
            "--data-parallel-size",
            "--attn-dp-size",
            "--attention-data-parallel-size",
            "--enable-dp-attention",
            "--disaggregation-decode-enable-radix-cache",
            "--enable-cache-report");
    // argparse takes "--dp" for the one flag it abbreviates, so it must stay unambiguous.
    assertThat(sgl.stream().filter(f -> f.startsWith("--dp")).toList())
        .containsExactly("--dp-size");
  }

  @Test
  void everyDataParallelRankBindsThePortsTheRelayReads() {
    int max = Rules.MAX_DATA_PARALLEL_SIZE;
    List<String> pub =
        IntStream.range(0, max)
            .mapToObj(r -> "tcp://127.0.0.1:" + (Defaults.ZMQ_PORT + r))
            .toList();
    List<String> replay =
        IntStream.range(0, max)
            .mapToObj(r -> "tcp://127.0.0.1:" + (Defaults.REPLAY_PORT + r))
            .toList();
    for (JsonNode engine : List.of(vllm, sglang)) {
      assertThat(ranks(engine, "pub")).isEqualTo(pub);
      assertThat(ranks(engine, "replay")).isEqualTo(replay);
      assertThat(ranks(engine, "pub")).doesNotContainAnyElementsOf(ranks(engine, "replay"));
    }
    // The relay's rank 0 is the engine's rank 0, on localhost; it adds the rank as the engines do.
    InferaDeployment idep = everyFlag(Engine.VLLM);
    RenderInputs in = Fixtures.fleet(idep).inputs();
    assertThat(RelaySidecar.args(in, in.pools().get(0)))
        .containsSequence("--zmq", "tcp://127.0.0.1:" + Defaults.ZMQ_PORT)
        .containsSequence("--replay", "tcp://127.0.0.1:" + Defaults.REPLAY_PORT)
        .containsSequence("--dp-size", "2");
  }

  @Test
  void theNixlRolesAreTheOnesVllmDefines() {
    Set<String> producer = new TreeSet<>();
    vllm.get("kvProducer").forEach(v -> producer.add(v.asText()));
    Set<String> consumer = new TreeSet<>();
    vllm.get("kvConsumer").forEach(v -> consumer.add(v.asText()));
    assertThat(producer).contains("kv_producer");
    assertThat(consumer).contains("kv_consumer");
    // kv_both is deprecated for NixlConnector: never the default of a pool.
    assertThat(vllm.get("nixlDeprecatesKvBoth").asBoolean()).isTrue();
    assertThat(KvTransferRole.forPool(PoolRole.PREFILL).value()).isIn(producer).isNotIn(consumer);
    assertThat(KvTransferRole.forPool(PoolRole.DECODE).value()).isIn(consumer).isNotIn(producer);
    // Every role the CRD offers is one vLLM accepts, and a pool may take exactly the roles
    // that produce (prefill) or consume (decode) KV.
    for (KvTransferRole k : KvTransferRole.values()) {
      assertThat(k.value()).isIn(union(producer, consumer));
      InferaDeployment onPrefill = idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
      onPrefill.getSpec().getPools().get(0).setKvTransferRole(k);
      assertThat(SpecValidator.validate(onPrefill).isEmpty())
          .as("%s on a prefill pool", k)
          .isEqualTo(producer.contains(k.value()));
      InferaDeployment onDecode = idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
      onDecode.getSpec().getPools().get(1).setKvTransferRole(k);
      assertThat(SpecValidator.validate(onDecode).isEmpty())
          .as("%s on a decode pool", k)
          .isEqualTo(consumer.contains(k.value()));
    }
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> out = new TreeSet<>(a);
    out.addAll(b);
    return out;
  }
}
