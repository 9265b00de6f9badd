package io.infera.operator.desired;

import static io.infera.operator.testing.Fixtures.fleet;
import static io.infera.operator.testing.Fixtures.idep;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.api.v1alpha1.PoolSpec;
import io.infera.operator.api.v1alpha1.Rules;
import io.infera.operator.testing.Fixtures;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code pools[].dataParallelSize}: the engine runs that many ranks, each binding the KV-event PUB
 * and replay base ports + rank (vLLM 0.33.0 and SGLang 0.5.23 {@code offset_endpoint_port}); the
 * relay and the router follow every rank, and no rank's port meets another socket's.
 */
class DataParallelTest {

  private static InferaDeployment withDp(Engine engine, PoolRole role, int dp) {
    InferaDeployment idep =
        role == PoolRole.MIXED
            ? idep(engine, PoolRole.MIXED)
            : idep(engine, PoolRole.PREFILL, PoolRole.DECODE);
    for (PoolSpec p : idep.getSpec().getPools()) {
      p.setDataParallelSize(dp);
      p.getResources().setGpu(engine == Engine.SIM ? 0 : dp);
    }
    return idep;
  }

  private static Container container(Fleet f, String pool, String name) {
    return name.equals(Names.ENGINE_CONTAINER)
        ? DesiredFleetTest.engine(f, pool)
        : DesiredFleetTest.relay(f, pool);
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource({"VLLM, --data-parallel-size", "SGLANG, --dp-size", "SIM, --dp-size"})
  void theEngineRunsTheRanksAndTheRelayReadsThemAll(Engine engine, String flag) {
    Fleet f = fleet(withDp(engine, PoolRole.MIXED, 4));
    assertThat(container(f, "mixed", Names.ENGINE_CONTAINER).getArgs()).containsSequence(flag, "4");
    assertThat(container(f, "mixed", Names.RELAY_CONTAINER).getArgs())
        .containsSequence("--dp-size", "4")
        .containsSequence("--zmq", "tcp://127.0.0.1:" + Defaults.ZMQ_PORT)
        .containsSequence("--replay", "tcp://127.0.0.1:" + Defaults.REPLAY_PORT);
    Map<String, Object> pool = routerPools(f).get(0);
    assertThat(pool).containsEntry("dpSize", 4).containsEntry("zmqPort", Defaults.ZMQ_PORT);
  }

  @ParameterizedTest
  @EnumSource(Engine.class)
  void oneRankIsTheDefaultAndSpellsNoFlagAnywhere(Engine engine) {
    Fleet f = fleet(idep(engine, PoolRole.MIXED));
    List<String> args = container(f, "mixed", Names.ENGINE_CONTAINER).getArgs();
    assertThat(args).doesNotContain("--data-parallel-size", "--dp-size", "-dp");
    assertThat(container(f, "mixed", Names.RELAY_CONTAINER).getArgs()).doesNotContain("--dp-size");
    assertThat(routerPools(f).get(0)).doesNotContainKey("dpSize");
  }

  @Test
  void poolsKeepTheirOwnSize() {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
    idep.getSpec().getPools().get(1).setDataParallelSize(2);
    idep.getSpec().getPools().get(1).getResources().setGpu(2);
    Fleet f = fleet(idep);
    assertThat(container(f, "decode", Names.RELAY_CONTAINER).getArgs())
        .containsSequence("--dp-size", "2");
    assertThat(container(f, "prefill", Names.RELAY_CONTAINER).getArgs())
        .doesNotContain("--dp-size");
    // vLLM offsets the NIXL side channel by the rank too: one declared port per rank.
    assertThat(container(f, "decode", Names.ENGINE_CONTAINER).getPorts())
        .extracting(ContainerPort::getName, ContainerPort::getContainerPort)
        .contains(
            org.assertj.core.groups.Tuple.tuple("nixl", 5600),
            org.assertj.core.groups.Tuple.tuple("nixl-1", 5601));
    assertThat(container(f, "prefill", Names.ENGINE_CONTAINER).getPorts())
        .extracting(ContainerPort::getName)
        .doesNotContain("nixl-1");
  }

  @Test
  void noPubRankMeetsAReplayRankOrTheNixlSideChannel() {
    int max = Rules.MAX_DATA_PARALLEL_SIZE;
    // More than the largest size apart: rank r's PUB (base + r) never lands on a replay port.
    assertThat(Defaults.REPLAY_PORT - Defaults.ZMQ_PORT).isGreaterThan(max);
    List<Integer> pub = IntStream.range(0, max).mapToObj(r -> Defaults.ZMQ_PORT + r).toList();
    List<Integer> replay = IntStream.range(0, max).mapToObj(r -> Defaults.REPLAY_PORT + r).toList();
    List<Integer> nixl =
        IntStream.range(0, max).mapToObj(r -> DesiredPool.VLLM_NIXL_SIDE_CHANNEL_PORT + r).toList();
    assertThat(pub).doesNotContainAnyElementsOf(replay).doesNotContainAnyElementsOf(nixl);
    assertThat(replay).doesNotContainAnyElementsOf(nixl);
    List<Integer> fixed =
        List.of(
            Defaults.ENGINE_PORT,
            Defaults.RELAY_HTTP_PORT,
            DesiredPool.SGLANG_BOOTSTRAP_PORT,
            5710 /* vLLM's P2P side channel */);
    assertThat(pub).doesNotContainAnyElementsOf(fixed);
    assertThat(replay).doesNotContainAnyElementsOf(fixed);
  }

  @Test
  void theLargestSizeRendersAndOneMoreIsRefused() {
    InferaDeployment ok = withDp(Engine.VLLM, PoolRole.MIXED, Rules.MAX_DATA_PARALLEL_SIZE);
    assertThat(routerPools(fleet(ok)).get(0)).containsEntry("dpSize", Rules.MAX_DATA_PARALLEL_SIZE);
    InferaDeployment tooMany =
        withDp(Engine.VLLM, PoolRole.MIXED, Rules.MAX_DATA_PARALLEL_SIZE + 1);
    assertThat(Fixtures.invalid(tooMany).message())
        .contains("spec.pools[0].dataParallelSize")
        .contains("must be in [1, " + Rules.MAX_DATA_PARALLEL_SIZE + "]");
  }

  @Test
  void theFieldsDescriptionNamesTheOperatorsPorts() throws NoSuchFieldException {
    String description =
        PoolSpec.class
            .getDeclaredField("dataParallelSize")
            .getAnnotation(com.fasterxml.jackson.annotation.JsonPropertyDescription.class)
            .value();
    assertThat(description)
        .contains("PUB port " + Defaults.ZMQ_PORT + " + rank")
        .contains("replay port " + Defaults.REPLAY_PORT + " + rank")
        .contains("1.." + Rules.MAX_DATA_PARALLEL_SIZE);
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> routerPools(Fleet f) {
    Map<String, Object> doc = DesiredRouterConfig.document(f.inputs());
    return (List<Map<String, Object>>) ((Map<String, Object>) doc.get("discovery")).get("pools");
  }
}
