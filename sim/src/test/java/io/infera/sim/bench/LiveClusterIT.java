package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.PolicyName;
import io.infera.router.json.Json;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.WorkerId;
import io.infera.sim.bench.report.RequestResult;
import io.infera.sim.engine.SimEngine;
import io.infera.sim.workload.Arrivals;
import io.infera.sim.workload.MultiTurnWorkload;
import io.infera.sim.workload.Workload;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The live driver end to end: simulated engines publishing real ZMQ KV events to the real router,
 * chat and completions traffic through it, and the router's index compared with the engines' true
 * caches ({@code /sim/cache}) afterwards.
 */
class LiveClusterIT {

  static Workload chats(int conversations, int turns) {
    return new MultiTurnWorkload(
        new MultiTurnWorkload.Config(
            conversations,
            turns,
            256,
            256,
            64,
            32,
            200,
            MultiTurnWorkload.ThinkTime.FIXED,
            Arrivals.poisson(20),
            7));
  }

  @Test
  void routerIndexMatchesTheEnginesTrueCachesAfterChatTraffic() throws Exception {
    // 200 blocks per engine: the conversations overflow it, so engines evict while we route.
    FleetSpec fleet = FleetSpec.of(2, 200);
    Arm arm = Arm.policy(PolicyName.KV_AWARE);
    Workload workload = chats(8, 3);
    AtomicInteger progress = new AtomicInteger();
    try (LiveStack stack = LiveStack.start(fleet, 4, 1, fleet.policy(PolicyName.KV_AWARE))) {
      VirtualCluster.Run run =
          LiveCluster.run(
              stack,
              fleet,
              4,
              LiveCluster.Api.CHAT,
              (a, seed, done, total) -> progress.set(done),
              arm,
              1,
              workload);
      assertThat(progress.get()).isEqualTo(24);
      assertThat(run.results()).hasSize(24).noneMatch(RequestResult::error);
      assertThat(run.results()).allMatch(r -> r.worker() != null && r.worker().matches("w[01]"));
      // Later turns of a conversation reuse its history on the engine that served it.
      assertThat(
              run.results().stream()
                  .filter(r -> r.turn() > 0)
                  .mapToInt(r -> r.cachedTokens())
                  .sum())
          .isPositive();

      HttpClient http = HttpClient.newHttpClient();
      for (int i = 0; i < stack.engines().size(); i++) {
        SimEngine engine = stack.engines().get(i);
        SourceId source = new SourceId(WorkerId.of("w" + i), 0);
        Set<Long> truth = Set.of();
        Set<Long> indexed = Set.of();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
          stack.router().runtime().ingest().flush().get(5, TimeUnit.SECONDS);
          truth = simCache(http, engine);
          indexed = new HashSet<>();
          for (long h : stack.router().runtime().index().viewHashes(source)) {
            indexed.add(h);
          }
          if (truth.equals(indexed)) {
            break;
          }
          Thread.sleep(50);
        }
        assertThat(truth).as("engine w%d caches something", i).isNotEmpty();
        assertThat(indexed).as("router index of w%d vs /sim/cache", i).isEqualTo(truth);
      }
    }
  }

  @Test
  void oracleAndPolicyArmsRunOnCompletions() throws Exception {
    FleetSpec fleet = FleetSpec.of(2, 512);
    BenchRunner.Result r =
        BenchRunner.run(
            LiveCluster.driver(fleet, 4),
            List.of(Arm.policy(PolicyName.KV_AWARE), Arm.oracle()),
            List.of(1),
            seed -> chats(4, 3),
            List.of("w0", "w1"),
            null);
    assertThat(r.all()).hasSize(24).noneMatch(RequestResult::error);
    assertThat(r.arms()).extracting(a -> a.policy()).containsExactly("kv-aware", "oracle");
    for (var a : r.arms()) {
      assertThat(a.hitRatio()).as(a.policy()).isPositive();
      assertThat(a.ttftP50Ms()).as(a.policy()).isPositive();
    }
  }

  private static Set<Long> simCache(HttpClient http, SimEngine engine) throws Exception {
    HttpResponse<String> resp =
        http.send(
            HttpRequest.newBuilder(URI.create(engine.url() + "/sim/cache")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(resp.statusCode()).isEqualTo(200);
    Map<?, ?> body = (Map<?, ?>) Json.parse(resp.body());
    Set<Long> out = new HashSet<>();
    for (Object h : (List<?>) body.get("router_hashes")) {
      out.add(HexFormat.fromHexDigitsToLong((String) h));
    }
    return out;
  }
}
