package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.router.config.Role;
import io.infera.router.kv.WorkerId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** kv-aware on a multimodal request: image affinity in place of the text overlap term. */
class MultimodalPolicyTest {

  private static final Worker A = Worker.of("a", Role.MIXED);
  private static final Worker B = Worker.of("b", Role.MIXED);
  private static final Worker C = Worker.of("c", Role.MIXED);
  private static final RoutingPolicy KV = RoutingPolicy.of(PolicyConfig.defaults());

  private static LoadSnapshot loads(Map<WorkerId, WorkerLoad> loads) {
    return new LoadSnapshot(loads, 0);
  }

  @Test
  void aRepeatImageIsDrawnToTheWorkerHoldingItLikeCachedBlocks() {
    // 2 text blocks + 1 image of 36 blocks = 38; b holds the image.
    Overlap o = Overlap.multimodal(2, new ImageOverlap(1, 38, Map.of(B.id(), 1)));
    Decision d =
        KV.select(
            List.of(A, B, C),
            o,
            loads(Map.of(B.id(), new WorkerLoad(20, 10, 2)))); // b is busier, by 30 blocks
    assertThat(d.winner()).isEqualTo(B.id());
    assertThat(d.images()).isEqualTo(1);
    assertThat(d.winnerScore().imageHits()).isEqualTo(1);
    assertThat(d.winnerScore().imageHitBlocks()).isEqualTo(38.0);
    assertThat(d.winnerScore().cost()).isEqualTo(30.0);
    // the others pay the whole term
    assertThat(d.scores().get(0).cost()).isEqualTo(38.0);
  }

  @Test
  void loadStillWinsWhenTheHolderIsFarBusierThanTheImageIsWorth() {
    Overlap o = Overlap.multimodal(2, new ImageOverlap(1, 38, Map.of(B.id(), 1)));
    Decision d = KV.select(List.of(A, B), o, loads(Map.of(B.id(), new WorkerLoad(40, 10, 4))));
    assertThat(d.winner()).isEqualTo(A.id());
  }

  @Test
  void anUnseenImageIsRoutedByLoad() {
    Overlap o = Overlap.multimodal(4, new ImageOverlap(2, 76, Map.of()));
    Decision d =
        KV.select(
            List.of(A, B, C),
            o,
            loads(Map.of(A.id(), new WorkerLoad(3, 0, 1), B.id(), new WorkerLoad(1, 0, 1))));
    assertThat(d.winner()).isEqualTo(C.id());
    assertThat(d.scores()).allSatisfy(s -> assertThat(s.imageHits()).isZero());
  }

  @Test
  void holdingSomeImagesCountsTheirShare() {
    Overlap o = Overlap.multimodal(0, new ImageOverlap(4, 100, Map.of(A.id(), 1, B.id(), 3)));
    Decision d = KV.select(List.of(A, B), o, loads(Map.of()));
    assertThat(d.winner()).isEqualTo(B.id());
    assertThat(d.scores().get(0).imageHitBlocks()).isEqualTo(25.0);
    assertThat(d.scores().get(1).imageHitBlocks()).isEqualTo(75.0);
  }

  @Test
  void theWeightScalesTheAffinityTermAsItScalesTextHits() {
    Overlap o = Overlap.multimodal(0, new ImageOverlap(1, 10, Map.of(B.id(), 1)));
    LoadSnapshot l = loads(Map.of(B.id(), new WorkerLoad(15, 0, 1)));
    // weight 1: a pays 10, b 15 → a; weight 2: a pays 20, b 15 → b
    assertThat(KV.select(List.of(A, B), o, l, new PickWeights(new double[] {1, 1}, 1.0)).winner())
        .isEqualTo(A.id());
    assertThat(KV.select(List.of(A, B), o, l, new PickWeights(new double[] {2, 2}, 1.0)).winner())
        .isEqualTo(B.id());
  }

  @Test
  void approxPrefixUsesTheSameRuleAndLoadPoliciesIgnoreIt() {
    Overlap o = Overlap.multimodal(0, new ImageOverlap(1, 50, Map.of(B.id(), 1)));
    LoadSnapshot l = loads(Map.of(B.id(), new WorkerLoad(5, 0, 1)));
    RoutingPolicy approx =
        RoutingPolicy.of(new PolicyConfig(PolicyName.APPROX_PREFIX, 1.0, null, null));
    assertThat(approx.select(List.of(A, B), o, l).winner()).isEqualTo(B.id());
    RoutingPolicy least =
        RoutingPolicy.of(new PolicyConfig(PolicyName.LEAST_LOADED, 1.0, null, null));
    assertThat(least.select(List.of(A, B), o, l).winner()).isEqualTo(A.id());
  }

  @Test
  void aTextOnlyOverlapIsUnchanged() {
    Overlap o = new Overlap(8, Map.of(B.id(), 8));
    Decision d = KV.select(List.of(A, B), o, loads(Map.of()));
    assertThat(o.multimodal()).isFalse();
    assertThat(d.winner()).isEqualTo(B.id());
    assertThat(d.images()).isZero();
    assertThat(d.winnerScore().hits()).isEqualTo(8);
  }
}
