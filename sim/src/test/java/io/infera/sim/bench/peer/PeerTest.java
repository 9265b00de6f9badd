package io.infera.sim.bench.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.sim.bench.Arm;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class PeerTest {

  @Test
  void everyPeerIsPinnedToOneRelease() {
    for (Peer p : Peer.values()) {
      assertThat(p.requirement()).as(p.wireName()).matches("[a-z-]+==\\d+(\\.\\d+)+");
    }
  }

  @Test
  void namesParseCaseAndSpaceInsensitivelyAndUnknownOnesListTheKnown() {
    assertThat(Peer.parse(" SGLang-Router ")).isEqualTo(Peer.SGLANG_ROUTER);
    assertThat(Peer.parse("vllm-router")).isEqualTo(Peer.VLLM_ROUTER);
    assertThatThrownBy(() -> Peer.parse("nginx"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sglang-router, vllm-router, dynamo");
  }

  @Test
  void theCommandLineBindsLoopbackOnlyInCacheAwareModeInFrontOfEveryWorker() {
    List<String> cmd =
        Peer.SGLANG_ROUTER.command(
            Path.of("/venv/bin"), 4000, 4001, List.of("http://127.0.0.1:1", "http://127.0.0.1:2"));
    assertThat(cmd.subList(0, 2)).containsExactly("/venv/bin/sglang-router", "launch");
    assertThat(String.join(" ", cmd))
        .contains("--host 127.0.0.1 --port 4000")
        .contains("--prometheus-host 127.0.0.1 --prometheus-port 4001")
        .contains("--policy cache_aware")
        .endsWith("--worker-urls http://127.0.0.1:1 http://127.0.0.1:2");
    assertThat(Peer.VLLM_ROUTER.command(Path.of("/b"), 1, 2, List.of("u")).get(1))
        .isEqualTo("--host");
  }

  @Test
  void aPeerThatCannotFrontHttpWorkersSaysWhyAndHasNoCommand() {
    assertThat(Peer.DYNAMO.unsupportedReason()).contains("mocker");
    assertThat(Peer.SGLANG_ROUTER.unsupportedReason()).isNull();
    assertThatThrownBy(() -> Peer.DYNAMO.command(Path.of("/b"), 1, 2, List.of()))
        .isInstanceOf(IllegalStateException.class);
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
