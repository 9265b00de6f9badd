package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.router.config.Role;
import io.infera.router.kv.WorkerId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RoutingPolicyTest {

  private static final Worker A = Worker.of("a", Role.MIXED);
  private static final Worker B = Worker.of("b", Role.MIXED);
  private static final Worker C = Worker.of("c", Role.MIXED);

  private static LoadSnapshot loads(Map<WorkerId, WorkerLoad> loads) {
    return new LoadSnapshot(loads, 0);
  }

  @ParameterizedTest(name = "w={0} blocks={1} hits={2} active={3} recent={4} -> {5}")
  @CsvSource({
    "1.0, 10, 0, 0, 0, 10",
    "1.0, 10, 10, 0, 0, 0",
    "1.0, 10, 4, 3, 0.5, 9.5",
    "2.0, 10, 4, 3, 0.5, 15.5",
    "0.0, 10, 0, 7, 1, 8",
    "1.0, 0, 0, 0, 2.5, 2.5"
  })
  void costIsWeightTimesMissedBlocksPlusLoad(
      double w, int blocks, int hits, long active, double recent, double cost) {
    var policy = new RoutingPolicy.KvAware(new PolicyConfig(PolicyName.KV_AWARE, w, null, null));
    Decision d =
        policy.select(
            List.of(A),
            new Overlap(blocks, Map.of(A.id(), hits)),
            loads(Map.of(A.id(), new WorkerLoad(active, recent, 1))));
    assertThat(d.winnerScore().cost()).isCloseTo(cost, within(1e-9));
    assertThat(d.winnerScore().hits()).isEqualTo(hits);
    assertThat(d.requestBlocks()).isEqualTo(blocks);
  }

  @Test
  void equalCostsAndLoadTermsGoToFewerRequestsInFlight() {
    var policy = RoutingPolicy.of(PolicyConfig.defaults());
    // No blocks, charges drained: a holds two requests, b one, c none.
    Decision d =
        policy.select(
            List.of(A, B, C),
            Overlap.none(0),
            loads(
                Map.of(
                    A.id(), new WorkerLoad(0, 0, 2),
                    B.id(), new WorkerLoad(0, 0, 1))));
    assertThat(d.winner()).isEqualTo(C.id());
    // An idle fleet keeps candidate order; a lower load term still beats fewer in flight.
    assertThat(policy.select(List.of(A, B), Overlap.none(0), loads(Map.of())).winner())
        .isEqualTo(A.id());
    Decision load =
        policy.select(
            List.of(A, B),
            Overlap.none(0),
            loads(Map.of(A.id(), new WorkerLoad(0, 0.5, 1), B.id(), new WorkerLoad(0, 0, 3))));
    assertThat(load.winner()).isEqualTo(B.id());
  }

  @Test
  void lowestCostWinsAndEveryCandidateIsScored() {
    var policy = RoutingPolicy.of(PolicyConfig.defaults());
    Decision d =
        policy.select(
            List.of(A, B, C),
            new Overlap(10, Map.of(A.id(), 2, B.id(), 8, C.id(), 9)),
            loads(Map.of(C.id(), new WorkerLoad(5, 0, 1))));
    // a: 8, b: 2, c: 1 + 5 = 6
    assertThat(d.winner()).isEqualTo(B.id());
    assertThat(d.scores()).extracting(Decision.Score::cost).containsExactly(8.0, 2.0, 6.0);
  }

  @Test
  void tiesGoToLowerLoadThenToTheEarlierCandidate() {
    var policy = RoutingPolicy.of(PolicyConfig.defaults());
    // a: 4 missed + 0 load = 4; b: 2 missed + 2 load = 4 -> a (lower load)
    Decision byLoad =
        policy.select(
            List.of(B, A),
            new Overlap(4, Map.of(B.id(), 2)),
            loads(Map.of(B.id(), new WorkerLoad(2, 0, 1))));
    assertThat(byLoad.winner()).isEqualTo(A.id());
    Decision byOrder = policy.select(List.of(C, A, B), Overlap.none(3), loads(Map.of()));
    assertThat(byOrder.winner()).isEqualTo(C.id());
  }

  @Test
  void perRoleWeightsOverrideTheGlobalWeight() {
    Worker prefill = Worker.of("p", Role.PREFILL);
    Worker decode = Worker.of("d", Role.DECODE);
    var cfg = new PolicyConfig(PolicyName.KV_AWARE, 1.0, 20.0, 2.0);
    assertThat(cfg.weightFor(Role.PREFILL)).isEqualTo(20.0);
    assertThat(cfg.weightFor(Role.DECODE)).isEqualTo(2.0);
    assertThat(cfg.weightFor(Role.MIXED)).isEqualTo(1.0);
    assertThat(new PolicyConfig(PolicyName.KV_AWARE, 3.0, null, null).weightFor(Role.PREFILL))
        .isEqualTo(3.0);

    Decision d =
        RoutingPolicy.of(cfg)
            .select(List.of(prefill, decode), new Overlap(10, Map.of()), loads(Map.of()));
    assertThat(d.scores()).extracting(Decision.Score::weight).containsExactly(20.0, 2.0);
    assertThat(d.winner()).isEqualTo(decode.id());
  }

  @Test
  void aHighOverlapWeightPrefersTheCacheOverLoad() {
    Worker cached = Worker.of("cached", Role.PREFILL);
    Worker idle = Worker.of("idle", Role.PREFILL);
    Overlap overlap = new Overlap(100, Map.of(cached.id(), 90));
    LoadSnapshot load = loads(Map.of(cached.id(), new WorkerLoad(500, 0, 3)));
    var low = RoutingPolicy.of(new PolicyConfig(PolicyName.KV_AWARE, 1.0, null, null));
    var high = RoutingPolicy.of(new PolicyConfig(PolicyName.KV_AWARE, 1.0, 20.0, null));
    assertThat(low.select(List.of(cached, idle), overlap, load).winner()).isEqualTo(idle.id());
    assertThat(high.select(List.of(cached, idle), overlap, load).winner()).isEqualTo(cached.id());
  }

  @Test
  void leastLoadedIgnoresTheCache() {
    var policy = RoutingPolicy.of(new PolicyConfig(PolicyName.LEAST_LOADED, 1, null, null));
    Decision d =
        policy.select(
            List.of(A, B, C),
            new Overlap(10, Map.of(A.id(), 10)),
            loads(
                Map.of(
                    A.id(), new WorkerLoad(1, 0, 1),
                    B.id(), new WorkerLoad(0, 0.5, 2),
                    C.id(), new WorkerLoad(0, 0.5, 1))));
    assertThat(d.winner()).isEqualTo(C.id());
  }

  @Test
  void roundRobinFollowsTheTicket() {
    var policy = RoutingPolicy.of(new PolicyConfig(PolicyName.ROUND_ROBIN, 1, null, null));
    List<Worker> ws = List.of(A, B, C);
    for (long t = 0; t < 7; t++) {
      Decision d = policy.select(ws, Overlap.none(0), new LoadSnapshot(Map.of(), t));
      assertThat(d.winner()).isEqualTo(ws.get((int) (t % 3)).id());
    }
  }

  @Test
  void selectionIsPure() {
    var policy = RoutingPolicy.of(PolicyConfig.defaults());
    Overlap o = new Overlap(5, Map.of(A.id(), 3));
    LoadSnapshot l = loads(Map.of(B.id(), new WorkerLoad(1, 1, 1)));
    assertThat(policy.select(List.of(A, B), o, l)).isEqualTo(policy.select(List.of(A, B), o, l));
  }

  @Test
  void invalidConfigIsRejectedNamingTheKey() {
    assertThatThrownBy(() -> new PolicyConfig(PolicyName.KV_AWARE, -1, null, null))
        .hasMessageContaining("overlapWeight");
    assertThatThrownBy(() -> new PolicyConfig(PolicyName.KV_AWARE, 1, Double.NaN, null))
        .hasMessageContaining("prefillOverlapWeight");
    assertThatThrownBy(() -> PolicyName.parse("random"))
        .hasMessageContaining("kv-aware, approx-prefix, least-loaded, round-robin");
    assertThatThrownBy(() -> Role.parse("encode")).hasMessageContaining("mixed, prefill, decode");
    assertThatThrownBy(
            () ->
                RoutingPolicy.of(PolicyConfig.defaults())
                    .select(List.of(), Overlap.none(0), loads(Map.of())))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
