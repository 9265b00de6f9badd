package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.Role;
import io.infera.router.kv.WorkerId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The engine-reported term is one more additive load term in kv-aware and least-loaded. */
class EngineTermPolicyTest {

  private static final Worker A = Worker.of("a", Role.MIXED);
  private static final Worker B = Worker.of("b", Role.MIXED);

  private static LoadSnapshot snap(Map<WorkerId, EngineTerm> engine) {
    return new LoadSnapshot(
        Map.of(A.id(), new WorkerLoad(3, 0, 1), B.id(), new WorkerLoad(3, 0, 1)), 0, engine);
  }

  @Test
  void kvAwareAddsTheTermAndShowsIt() {
    var policy = RoutingPolicy.of(PolicyConfig.defaults());
    Overlap o = new Overlap(10, Map.of(A.id(), 8, B.id(), 5));
    // Without the term a (2 missed + 3) beats b (5 + 3).
    assertThat(policy.select(List.of(A, B), o, snap(Map.of())).winner()).isEqualTo(A.id());
    // The engine behind a reports 40 blocks of work the router did not send: b wins.
    EngineTerm busy = new EngineTerm(40, 12, 0.5, 120);
    Decision d = policy.select(List.of(A, B), o, snap(Map.of(A.id(), busy)));
    assertThat(d.winner()).isEqualTo(B.id());
    assertThat(d.scores().get(0).cost()).isEqualTo(2 + 3 + 40.0);
    assertThat(d.scores().get(0).engine()).isEqualTo(busy);
    assertThat(d.scores().get(1).engine()).isEqualTo(EngineTerm.UNKNOWN);
    assertThat(d.scores().get(0).loadTerm()).isEqualTo(43.0);
  }

  @Test
  void anUnknownTermChangesNothing() {
    var policy = RoutingPolicy.of(PolicyConfig.defaults());
    Overlap o = new Overlap(10, Map.of(A.id(), 8));
    Decision plain = policy.select(List.of(A, B), o, new LoadSnapshot(snap(Map.of()).loads(), 0));
    Decision unknown = policy.select(List.of(A, B), o, snap(Map.of(A.id(), EngineTerm.UNKNOWN)));
    assertThat(unknown.scores()).isEqualTo(plain.scores());
  }

  @Test
  void tiesOnCostGoToTheLowerLoadEngineTermIncluded() {
    var policy = RoutingPolicy.of(PolicyConfig.defaults());
    // a: 0 missed + 3 load + 2 engine = 5; b: 2 missed + 3 load = 5 -> b (load 3 < 5).
    Overlap o = new Overlap(2, Map.of(A.id(), 2));
    Decision d = policy.select(List.of(A, B), o, snap(Map.of(A.id(), new EngineTerm(2, 4, 0, 0))));
    assertThat(d.winner()).isEqualTo(B.id());
  }

  @Test
  void leastLoadedCountsTheTermToo() {
    var policy = new RoutingPolicy.LeastLoaded();
    Decision d =
        policy.select(
            List.of(A, B), Overlap.none(4), snap(Map.of(A.id(), new EngineTerm(1, 2, 0, 0))));
    assertThat(d.winner()).isEqualTo(B.id());
    assertThat(d.scores().get(0).cost()).isEqualTo(4.0);
  }

  @Test
  void aTermIsFiniteAndNotNegative() {
    assertThatThrownBy(() -> new EngineTerm(-1, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new EngineTerm(Double.NaN, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new EngineTerm(Double.POSITIVE_INFINITY, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(EngineTerm.of(1e308, 0, 0, 1e308, 1000, 0).blocks()).isZero(); // overflow: unknown
  }
}
