package io.infera.sim.bench.peer;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.sim.bench.Arm;
import io.infera.sim.bench.BenchRunner;
import io.infera.sim.bench.FleetSpec;
import io.infera.sim.bench.LiveCluster;
import io.infera.sim.bench.StandardWorkloads;
import io.infera.sim.bench.report.ArmSummary;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The smoke run of {@code infera-sim bench --peer}: SGLang's router installed from PyPI (pinned,
 * cached under {@code ~/.cache/infera/peers/}) and our router, each in its own process in front of
 * the same two simulated engines, on a short shared-prefix workload with reuse. Every request is
 * answered, both find the shared prefixes, and each process's CPU is measured. The full comparison
 * is the documented command in docs/peers.md, not this test.
 */
class PeerHarnessIT {

  @Test
  @Timeout(300)
  void sglangRouterAndOurRouterServeTheSameEnginesSideBySide() throws Exception {
    requirePyPiOrCache(Peer.SGLANG_ROUTER);
    PeerInstall.ensure(Peer.SGLANG_ROUTER, new PrintWriter(System.out, true));
    FleetSpec fleet = FleetSpec.of(2, 2048);
    // Two system prompts of 2,048 tokens (kv-fraction 0.06 of 4,096 blocks), 20 prompts each.
    var workload = StandardWorkloads.of("shared-prefix", fleet, 0.06, 40, 20.0);
    Map<String, Double> cpu = new ConcurrentHashMap<>();
    LiveCluster.Listener listener =
        new LiveCluster.Listener() {
          @Override
          public void requestDone(Arm arm, int seed, int done, int total) {}

          @Override
          public void peerCpu(Arm arm, int seed, double cpuSeconds, int requests) {
            cpu.put(arm.name(), cpuSeconds);
          }
        };
    List<Arm> arms = List.of(Arm.peer(Peer.INFERA), Arm.peer(Peer.SGLANG_ROUTER));
    BenchRunner.Result r =
        BenchRunner.run(
            LiveCluster.driver(fleet, 1.0, LiveCluster.Api.CHAT, listener),
            arms,
            List.of(1),
            workload,
            List.of("w0", "w1"),
            null);
    Map<String, ArmSummary> by =
        r.arms().stream().collect(Collectors.toMap(ArmSummary::policy, a -> a));
    for (Arm a : arms) {
      ArmSummary s = by.get(a.name());
      System.out.printf(
          "%s: %d requests, %d errors, TTFT p50/p90 %.1f/%.1f ms, hit ratio %.3f, CPU %.2f s%n",
          a.name(),
          s.requests(),
          s.errors(),
          s.ttftP50Ms(),
          s.ttftP90Ms(),
          s.hitRatio(),
          cpu.getOrDefault(a.name(), -1.0));
      assertThat(s.errors()).as("%s errors", a.name()).isZero();
      assertThat(s.rejections()).as("%s rejections", a.name()).isZero();
      assertThat(s.requests()).as("%s requests", a.name()).isEqualTo(40);
      // 2 prompts × 20 with 2,048 shared tokens of 2,176: anything that routes by prefix finds
      // most of them; a prefix-blind router would still hit some by chance, so the bar is high.
      assertThat(s.hitRatio()).as("%s hit ratio", a.name()).isGreaterThan(0.5);
      assertThat(cpu.get(a.name())).as("%s CPU seconds", a.name()).isPositive();
    }
  }

  /**
   * Skips, loudly, only when the peer is not installed yet and PyPI cannot be reached; an install
   * that fails with PyPI reachable fails the test.
   */
  static void requirePyPiOrCache(Peer peer) {
    if (java.nio.file.Files.isDirectory(
        PeerInstall.cacheRoot().resolve("peers").resolve(peer.requirement().replace("==", "-")))) {
      return;
    }
    String why = null;
    try {
      HttpResponse<Void> r =
          HttpClient.newBuilder()
              .connectTimeout(Duration.ofSeconds(10))
              .build()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("https://pypi.org/simple/" + peer.wireName() + "/"))
                      .timeout(Duration.ofSeconds(20))
                      .GET()
                      .build(),
                  HttpResponse.BodyHandlers.discarding());
      if (r.statusCode() >= 500) {
        why = "PyPI answered HTTP " + r.statusCode();
      }
    } catch (Exception e) {
      why = "PyPI is unreachable: " + e;
    }
    if (why != null) {
      String msg =
          "SKIPPED (loudly): "
              + peer.release()
              + " is not cached under "
              + PeerInstall.cacheRoot()
              + "/peers and "
              + why;
      System.out.println("!!!!!!!! " + msg);
      System.err.println("!!!!!!!! " + msg);
      Assumptions.abort(msg);
    }
  }
}
