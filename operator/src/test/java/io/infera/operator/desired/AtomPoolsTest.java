package io.infera.operator.desired;

import static io.infera.operator.desired.DesiredFleetTest.engine;
import static io.infera.operator.desired.DesiredFleetTest.relay;
import static io.infera.operator.testing.Fixtures.fleet;
import static io.infera.operator.testing.Fixtures.idep;
import static io.infera.operator.testing.Fixtures.invalid;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.PoolRole;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Pools of {@code engine: atom} (docs/atom.md): command, KV-event env, GPUs, relay, hand-over. */
class AtomPoolsTest {

  private static Map<String, String> env(Container c) {
    return c.getEnv().stream()
        .filter(e -> e.getValue() != null)
        .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
  }

  @Test
  void theEngineRunsAtomsOpenAiServerWithTheDerivedFlags() {
    Fleet f = fleet(idep(Engine.ATOM, PoolRole.PREFILL, PoolRole.DECODE));
    Container prefill = engine(f, "prefill");
    assertThat(prefill.getImage()).isEqualTo(Images.ATOM).isEqualTo("rocm/atom-dev:latest");
    assertThat(prefill.getCommand())
        .containsExactly("python3", "-m", "atom.entrypoints.openai_server");
    assertThat(prefill.getArgs())
        .containsExactly(
            "--model",
            "Qwen/Qwen3-0.6B",
            "--host",
            "0.0.0.0",
            "--server-port",
            "8000",
            "--block-size",
            "16",
            "--kv-transfer-config",
            "{\"kv_connector\":\"mooncake\",\"kv_role\":\"kv_producer\"}");
    assertThat(engine(f, "decode").getArgs())
        .contains("{\"kv_connector\":\"mooncake\",\"kv_role\":\"kv_consumer\"}");
    Fleet mixed = fleet(idep(Engine.ATOM, PoolRole.MIXED));
    assertThat(engine(mixed, "mixed").getArgs())
        .doesNotContain("--kv-transfer-config")
        .doesNotContain("--port");
  }

  @Test
  void kvEventsAreSwitchedOnThroughTheEnvironmentBesidePythonHashSeed() {
    Container c = engine(fleet(idep(Engine.ATOM, PoolRole.MIXED)), "mixed");
    List<String> names = c.getEnv().stream().map(EnvVar::getName).toList();
    assertThat(names.get(0)).isEqualTo(DesiredPool.PYTHONHASHSEED);
    assertThat(env(c))
        .containsEntry("ATOM_KV_EVENTS_ENABLE", "1")
        .containsEntry("ATOM_KV_EVENTS_PUBLISHER", "zmq")
        .containsEntry("ATOM_KV_EVENTS_ENDPOINT", "tcp://127.0.0.1:5557")
        .containsEntry("ATOM_KV_EVENTS_TOPIC", "kv-events");
    // Other engines take flags, not these variables.
    assertThat(env(engine(fleet(idep(Engine.VLLM, PoolRole.MIXED)), "mixed")))
        .doesNotContainKey("ATOM_KV_EVENTS_ENABLE");
  }

  @Test
  void aPoolVariableContradictingTheKvEventSettingsIsRefusedAnEqualOneIsNotRepeated() {
    InferaDeployment idep = idep(Engine.ATOM, PoolRole.MIXED);
    idep.getSpec()
        .getPools()
        .get(0)
        .setEnv(
            List.of(
                new EnvVarBuilder().withName("ATOM_KV_EVENTS_TOPIC").withValue("kv-events").build(),
                new EnvVarBuilder().withName("ATOM_KV_EVENTS_ENABLE").withValue("0").build(),
                new EnvVarBuilder()
                    .withName("ATOM_KV_EVENTS_ENDPOINT")
                    .withNewValueFrom()
                    .withNewFieldRef()
                    .withFieldPath("status.podIP")
                    .endFieldRef()
                    .endValueFrom()
                    .build()));
    var refused = invalid(idep);
    assertThat(refused.violations()).hasSize(2);
    assertThat(refused.message())
        .contains("spec.pools[0].env[1]")
        .contains("sets ATOM_KV_EVENTS_ENABLE=0, which contradicts the operator-derived")
        .contains("spec.pools[0].env[2]")
        .contains("ATOM_KV_EVENTS_ENDPOINT from a reference");
    idep.getSpec()
        .getPools()
        .get(0)
        .setEnv(
            List.of(
                new EnvVarBuilder()
                    .withName("ATOM_KV_EVENTS_TOPIC")
                    .withValue("kv-events")
                    .build()));
    Container c = engine(fleet(idep), "mixed");
    assertThat(c.getEnv().stream().filter(e -> e.getName().equals("ATOM_KV_EVENTS_TOPIC")))
        .hasSize(1);
  }

  @Test
  void atomPoolsAskForAmdGpusUnlessTheyNameAnotherType() {
    InferaDeployment idep = idep(Engine.ATOM, PoolRole.PREFILL, PoolRole.DECODE);
    idep.getSpec().getPools().get(0).getResources().setGpu(8);
    idep.getSpec().getPools().get(1).getResources().setGpuType("example.com/gpu");
    Fleet f = fleet(idep);
    assertThat(engine(f, "prefill").getResources().getLimits())
        .containsEntry("amd.com/gpu", new Quantity("8"))
        .doesNotContainKey("nvidia.com/gpu");
    assertThat(engine(f, "decode").getResources().getLimits())
        .containsEntry("example.com/gpu", new Quantity("1"))
        .doesNotContainKey("amd.com/gpu");
    // The default of every other engine is unchanged.
    assertThat(engine(fleet(idep(Engine.VLLM, PoolRole.MIXED)), "mixed").getResources().getLimits())
        .containsKey("nvidia.com/gpu");
  }

  @Test
  void theRelayConnectsToAtomsBoundPublisherAndAsksNoReplay() {
    Fleet f = fleet(idep(Engine.ATOM, PoolRole.MIXED));
    List<String> args = relay(f, "mixed").getArgs();
    assertThat(args)
        .containsSequence("--zmq", "tcp://127.0.0.1:5557")
        .containsSequence("--zmq-mode", "connect")
        .containsSequence("--engine", "atom")
        .doesNotContain("--replay");
    assertThat(relay(fleet(idep(Engine.VLLM, PoolRole.MIXED)), "mixed").getArgs())
        .containsSequence("--zmq-mode", "bind")
        .contains("--replay");
  }

  @Test
  void theRouterConfigNamesTheEngineAtom() {
    Fleet f = fleet(idep(Engine.ATOM, PoolRole.PREFILL, PoolRole.DECODE));
    assertThat(f.routerConfigMap().getData().get("router.yaml")).contains("engine: atom");
  }

  @Test
  void prefillAndDecodePodsDeclareTheKvTransferHandshakePortPerGpu() {
    InferaDeployment idep = idep(Engine.ATOM, PoolRole.PREFILL, PoolRole.DECODE);
    idep.getSpec().getPools().get(0).getResources().setGpu(4);
    Fleet f = fleet(idep);
    assertThat(engine(f, "prefill").getPorts())
        .extracting(ContainerPort::getContainerPort)
        .contains(6301, 6302, 6303, 6304)
        .doesNotContain(6305);
    assertThat(engine(f, "decode").getPorts())
        .extracting(ContainerPort::getName)
        .contains("kv-handshake");
    assertThat(engine(fleet(idep(Engine.ATOM, PoolRole.MIXED)), "mixed").getPorts())
        .extracting(ContainerPort::getName)
        .doesNotContain("kv-handshake");
  }

  @Test
  void moreThanOneDataParallelRankIsRefused() {
    InferaDeployment idep = idep(Engine.ATOM, PoolRole.MIXED);
    idep.getSpec().getPools().get(0).setDataParallelSize(2);
    var refused = invalid(idep);
    assertThat(refused.message())
        .contains("spec.pools[0].dataParallelSize")
        .contains("must be 1 with engine atom")
        .contains("(got 2)");
    idep.getSpec().getPools().get(0).setDataParallelSize(1);
    fleet(idep);
  }
}
