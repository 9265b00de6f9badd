package io.infera.sim.bench.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.PolicyName;
import io.infera.router.config.RouterConfig;
import io.infera.sim.bench.Arm;
import java.nio.file.Path;
import java.util.List;
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
  void aPeerThatCannotFrontHttpWorkersSaysWhyAndHasNoCommand() {
    assertThat(Peer.DYNAMO.unsupportedReason()).contains("mocker");
    assertThat(Peer.SGLANG_ROUTER.unsupportedReason()).isNull();
    assertThatThrownBy(() -> Peer.DYNAMO.command(Path.of("/b"), 1, 2, List.of(), null))
        .isInstanceOf(IllegalStateException.class);
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
