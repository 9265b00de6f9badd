package io.infera.sim.bench.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.PolicyName;
import io.infera.router.config.RouterConfig;
import io.infera.sim.bench.Arm;
import io.infera.sim.sched.EngineConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PeerTest {

  @Test
  void everyPeerIsPinnedToOneRelease() {
    for (Peer p : Peer.values()) {
      if (p != Peer.INFERA) {
        assertThat(p.requirement()).as(p.wireName()).matches("[a-z-]+==\\d+(\\.\\d+)+");
        assertThat(p.release()).isEqualTo(p.requirement());
      }
    }
    assertThat(Peer.INFERA.requirement()).isNull();
    assertThat(Peer.INFERA.release()).isEqualTo("this build");
  }

  @Test
  void namesParseCaseAndSpaceInsensitivelyAndUnknownOnesListTheKnown() {
    assertThat(Peer.parse(" SGLang-Router ")).isEqualTo(Peer.SGLANG_ROUTER);
    assertThat(Peer.parse("vllm-router")).isEqualTo(Peer.VLLM_ROUTER);
    assertThatThrownBy(() -> Peer.parse("nginx"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("infera, sglang-router, vllm-router, dynamo");
  }

  @Test
  void theCommandLineBindsLoopbackOnlyInCacheAwareModeInFrontOfEveryWorker() {
    List<String> cmd =
        Peer.SGLANG_ROUTER.command(
            Path.of("/venv/bin"),
            4000,
            4001,
            List.of(
                new Peer.Worker("http://127.0.0.1:1", "tcp://127.0.0.1:11", null),
                new Peer.Worker("http://127.0.0.1:2", "tcp://127.0.0.1:12", null)),
            null);
    assertThat(cmd.subList(0, 2)).containsExactly("/venv/bin/sglang-router", "launch");
    assertThat(String.join(" ", cmd))
        .contains("--host 127.0.0.1 --port 4000")
        .contains("--prometheus-host 127.0.0.1 --prometheus-port 4001")
        .contains("--policy cache_aware")
        .endsWith("--worker-urls http://127.0.0.1:1 http://127.0.0.1:2");
    assertThat(
            Peer.VLLM_ROUTER
                .command(Path.of("/b"), 1, 2, List.of(new Peer.Worker("u", "z", null)), null)
                .get(1))
        .isEqualTo("--host");
  }

  @Test
  void dynamoBringsItsOwnEnginesConfiguredAsOursAndRoutesInKvMode() {
    assertThat(Peer.DYNAMO.ownsEngines()).isTrue();
    assertThat(Peer.SGLANG_ROUTER.ownsEngines()).isFalse();
    Peer.Engines e = new Peer.Engines(4, 16, 2048, 256, 8192, 2.0);
    String engines =
        String.join(
            " ",
            Peer.DYNAMO.engineCommand(
                Path.of("/v/bin"), e, "sim", Path.of("/m"), Path.of("/p.npz")));
    assertThat(engines)
        .startsWith("/v/bin/python -m dynamo.mocker --model-path /m --model-name sim")
        .contains("--num-workers 4 --block-size 16 --num-gpu-blocks-override 2048")
        .contains("--max-num-seqs 256 --max-num-batched-tokens 8192")
        .contains("--speedup-ratio 2.0 --planner-profile-data /p.npz --discovery-backend file");
    assertThat(String.join(" ", Peer.DYNAMO.command(Path.of("/v/bin"), 5, 6, List.of(), null)))
        .isEqualTo(
            "/v/bin/python -m dynamo.frontend --http-host 127.0.0.1 --http-port 5 --router-mode kv"
                + " --discovery-backend file");
    assertThatThrownBy(() -> Peer.SGLANG_ROUTER.engineCommand(Path.of("/b"), e, "sim", null, null))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theMockersProfileIsOurCostModel() {
    EngineConfig engine = EngineConfig.defaults();
    Map<String, Object> p = DynamoSetup.profile(engine, 32_768);
    @SuppressWarnings("unchecked")
    List<Double> isl = (List<Double>) p.get("prefill_isl");
    @SuppressWarnings("unchecked")
    List<Double> ttft = (List<Double>) p.get("prefill_ttft_ms");
    @SuppressWarnings("unchecked")
    List<List<Double>> itl = (List<List<Double>>) p.get("decode_itl");
    assertThat(isl).hasSize(DynamoSetup.RESOLUTION).isSorted();
    assertThat(ttft).isSorted(); // longer prompts take longer
    // A prompt within one step's budget is one prefill step of our cost model.
    int n = isl.get(3).intValue();
    assertThat(n).isLessThanOrEqualTo(engine.maxNumBatchedTokens());
    assertThat(ttft.get(3)).isCloseTo(engine.cost().stepMs(n, 0, 0), within(1e-9));
    // The longest is the sum of its chunks.
    double chunks = 0;
    for (int done = 0; done < 32_768; done += 8192) {
      chunks += engine.cost().stepMs(8192, 0, done);
    }
    assertThat(ttft.get(DynamoSetup.RESOLUTION - 1)).isCloseTo(chunks, within(1e-9));
    assertThat(itl).hasSize(DynamoSetup.RESOLUTION);
    assertThat(itl.get(0)).hasSize(DynamoSetup.RESOLUTION);
    // More active KV at the same context length is a slower decode step.
    assertThat(itl.get(DynamoSetup.RESOLUTION - 1).get(5)).isGreaterThan(itl.get(1).get(5));
  }

  @Test
  void dynamosModelDirectoryHasOurTokenizerAndAQwen3Config() {
    assertThat(DynamoSetup.modelConfig())
        .containsEntry("model_type", "qwen3")
        .containsEntry("vocab_size", 151936);
  }

  @Test
  void ourRouterRunsAsARouterPodsJvmOnAConfigTheLoaderAccepts() throws Exception {
    List<Peer.Worker> workers =
        List.of(
            new Peer.Worker("http://127.0.0.1:1", "tcp://127.0.0.1:11", "tcp://127.0.0.1:21"),
            new Peer.Worker("http://127.0.0.1:2", "tcp://127.0.0.1:12", null));
    RouterConfig c = ConfigLoader.parse(Peer.config("sim", 16, 4000, 4001, workers));
    assertThat(c.model()).isEqualTo("sim");
    assertThat(c.listen().port()).isEqualTo(4000);
    assertThat(c.policy().name()).isEqualTo(PolicyName.KV_AWARE);
    assertThat(c.discovery().workers())
        .extracting(RouterConfig.StaticWorker::id, RouterConfig.StaticWorker::zmq)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("w0", "tcp://127.0.0.1:11"),
            org.assertj.core.groups.Tuple.tuple("w1", "tcp://127.0.0.1:12"));
    List<String> cmd = Peer.INFERA.command(null, 4000, 4001, workers, Path.of("/tmp/r.yaml"));
    assertThat(cmd).contains("-XX:MaxRAM=1g", "-XX:+UseSerialGC", "serve", "/tmp/r.yaml");
  }

  @Test
  void peerArmsParseFromThePolicyListAndHaveNoPolicy() {
    List<Arm> arms = Arm.parse("kv-aware,peer:sglang-router");
    assertThat(arms).extracting(Arm::name).containsExactly("kv-aware", "peer:sglang-router");
    assertThat(arms.get(1).isPeer()).isTrue();
    assertThat(arms.get(1).peer()).isEqualTo(Peer.SGLANG_ROUTER);
    assertThat(arms.get(0).isPeer()).isFalse();
    assertThatThrownBy(() -> arms.get(0).peer()).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Arm.parse("peer:haproxy"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
