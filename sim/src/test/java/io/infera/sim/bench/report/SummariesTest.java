package io.infera.sim.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SummariesTest {

  private static RequestResult ok(
      String policy, int seed, String worker, double ttft, int prompt, int cached, int out) {
    return RequestResult.ok(
        policy, seed, "s", 0, worker, 0, ttft, ttft + 10, List.of(), prompt, cached, out);
  }

  @ParameterizedTest(name = "p{1} of 1..{0} = {2}")
  @CsvSource({
    "100, 50, 50",
    "100, 90, 90",
    "100, 99, 99",
    "100, 100, 100",
    "10, 50, 5",
    "10, 99, 10",
    "10, 1, 1",
    "1, 50, 1",
    "1, 99, 1",
    "3, 50, 2", // rank ⌈1.5⌉ = 2
    "4, 50, 2", // rank 2 exactly: nearest rank never interpolates
  })
  void nearestRankPercentiles(int n, double p, double expected) {
    double[] sorted = new double[n];
    for (int i = 0; i < n; i++) {
      sorted[i] = i + 1;
    }
    assertThat(Summaries.percentile(sorted, p)).isEqualTo(expected);
  }

  @Test
  void percentileOfNothingIsNaN() {
    assertThat(Summaries.percentile(new double[0], 50)).isNaN();
    assertThatThrownBy(() -> Summaries.percentile(new double[] {1}, 0))
        .hasMessageContaining("(0, 100]");
  }

  @Test
  void summaryMath() {
    List<RequestResult> results = new ArrayList<>();
    // 100 successes with TTFT 100..1 ms (unsorted input), spread 50/30/20 over three workers.
    for (int i = 0; i < 100; i++) {
      String worker = i < 50 ? "w0" : i < 80 ? "w1" : "w2";
      results.add(ok("kv", 1, worker, 100 - i, 100, i < 50 ? 80 : 0, 10));
    }
    results.add(
        RequestResult.ok("kv", 1, "s", 1, "w2", 0, 5, 50, List.of(3.0, 1.0, 2.0, 4.0), 0, 0, 0));
    results.add(RequestResult.failed("kv", 1, "x", 0, "w2", 0, "http_502"));
    results.add(RequestResult.failed("kv", 1, "y", 0, null, 0, RequestResult.REJECTED));

    ArmSummary a = Summaries.summarize("kv", results, 2_000);

    assertThat(a.policy()).isEqualTo("kv");
    assertThat(a.seeds()).isEqualTo(1);
    assertThat(a.requests()).isEqualTo(103);
    assertThat(a.errors()).isEqualTo(2);
    assertThat(a.rejections()).isEqualTo(1);
    // 101 TTFTs: 1..100 and 5. Ranks: p50 → 51st = 50, p90 → 91st = 90, p99 → 100th = 99.
    assertThat(a.ttftP50Ms()).isEqualTo(50);
    assertThat(a.ttftP90Ms()).isEqualTo(90);
    assertThat(a.ttftP99Ms()).isEqualTo(99);
    assertThat(a.itlP50Ms()).isEqualTo(2);
    assertThat(a.itlP99Ms()).isEqualTo(4);
    // 1000 output tokens in 2 s.
    assertThat(a.throughputTokS()).isEqualTo(500);
    // 50 × 80 cached of 100 × 100 prompt tokens.
    assertThat(a.hitRatio()).isEqualTo(0.4);
    assertThat(a.hitRatioVsOracle()).isNull();
    // w0: 50, w1: 30, w2: 20 + 1 + the failed one = 22; the rejection reached no worker.
    assertThat(a.perWorkerRequests())
        .containsExactly(Map.entry("w0", 50L), Map.entry("w1", 30L), Map.entry("w2", 22L));
    assertThat(a.maxMinShare()).isCloseTo(50 / 22.0, within(1e-12));
  }

  @Test
  void aWorkerWithNoRequestsMakesTheShareInfinite() {
    List<RequestResult> results =
        List.of(ok("rr", 0, "w0", 1, 1, 0, 1), ok("rr", 0, "w1", 1, 1, 0, 1));
    assertThat(Summaries.summarize("rr", results, 1_000).maxMinShare()).isEqualTo(1.0);
    ArmSummary withFleet = Summaries.summarize("rr", results, 1_000, List.of("w0", "w1", "w2"));
    assertThat(withFleet.maxMinShare()).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(withFleet.perWorkerRequests()).containsEntry("w2", 0L).hasSize(3);
  }

  @Test
  void workersAreInNaturalOrder() {
    List<RequestResult> results = new ArrayList<>();
    for (String w : List.of("w10", "w2", "w1", "w0")) {
      results.add(ok("p", 0, w, 1, 1, 0, 1));
    }
    assertThat(Summaries.summarize("p", results, 1).perWorkerRequests().keySet())
        .containsExactly("w0", "w1", "w2", "w10");
  }

  @Test
  void seedsArePooled() {
    List<RequestResult> results = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      results.add(ok("kv", 1, "w0", i, 100, 100, 20)); // seed 1: TTFT 1..10, all cached
      results.add(ok("kv", 2, "w1", 10 + i, 100, 0, 20)); // seed 2: TTFT 11..20, nothing cached
    }
    ArmSummary a = Summaries.summarize("kv", results, 4_000);
    assertThat(a.seeds()).isEqualTo(2);
    assertThat(a.requests()).isEqualTo(20);
    // Percentiles over the union: 1..20.
    assertThat(a.ttftP50Ms()).isEqualTo(10);
    assertThat(a.ttftP90Ms()).isEqualTo(18);
    assertThat(a.ttftP99Ms()).isEqualTo(20);
    // Hit ratio sums tokens over both seeds.
    assertThat(a.hitRatio()).isEqualTo(0.5);
    // 400 tokens over 2 runs of 4 s each.
    assertThat(a.throughputTokS()).isEqualTo(50);
    assertThat(a.maxMinShare()).isEqualTo(1.0);
  }

  @Test
  void seedsOfDifferentDurationsPoolTheirRunTime() {
    List<RequestResult> results =
        List.of(ok("kv", 1, "w0", 1, 1, 0, 300), ok("kv", 2, "w0", 1, 1, 0, 100));
    // 400 tokens over 1 s + 3 s.
    ArmSummary a = Summaries.summarize("kv", results, Map.of(1, 1_000.0, 2, 3_000.0), List.of());
    assertThat(a.throughputTokS()).isEqualTo(100);
    assertThatThrownBy(() -> Summaries.summarize("kv", results, Map.of(1, 1_000.0), List.of()))
        .hasMessageContaining("seed 2");
  }

  @Test
  void noResultsGiveUndefinedValuesNotCrashes() {
    ArmSummary a = Summaries.summarize("idle", List.of(), 1_000);
    assertThat(a.requests()).isZero();
    assertThat(a.ttftP50Ms()).isNaN();
    assertThat(a.hitRatio()).isNaN();
    assertThat(a.maxMinShare()).isNaN();
    assertThat(a.throughputTokS()).isZero();
  }

  @Test
  void oracleNormalisesHitRatios() {
    List<RequestResult> all = new ArrayList<>();
    all.add(ok("kv-aware", 0, "w0", 1, 100, 40, 1));
    all.add(ok("oracle", 0, "w0", 1, 100, 80, 1));
    all.add(ok("round-robin", 0, "w0", 1, 100, 20, 1));
    List<ArmSummary> arms = Summaries.summarizeAll(all, 1_000, List.of());
    assertThat(arms)
        .extracting(ArmSummary::policy)
        .containsExactly("kv-aware", "oracle", "round-robin");
    assertThat(arms).extracting(ArmSummary::hitRatioVsOracle).containsExactly(0.5, 1.0, 0.25);

    List<ArmSummary> noOracle =
        Summaries.withOracle(List.of(Summaries.summarize("kv-aware", all.subList(0, 1), 1_000)));
    assertThat(noOracle.get(0).hitRatioVsOracle()).isNull();
  }

  @Test
  void meanAndSeedMeansCountSuccessesOnly() {
    List<RequestResult> r = new ArrayList<>();
    // Seed 1: TTFT 1, 2, 9 (p50 2, mean 4); seed 2: 10, 20 (p50 10, mean 15); one failure.
    for (double t : new double[] {1, 2, 9}) {
      r.add(ok("kv", 1, "w0", t, 10, 0, 1));
    }
    for (double t : new double[] {10, 20}) {
      r.add(ok("kv", 2, "w0", t, 10, 0, 1));
    }
    r.add(RequestResult.failed("kv", 2, "s", 0, "w0", 0, "http_500"));
    ArmSummary a = Summaries.summarize("kv", r, 1_000);
    assertThat(a.ttftMeanMs()).isCloseTo(42.0 / 5, within(1e-12));
    assertThat(a.ttftP50SeedMeanMs()).isEqualTo((2 + 10) / 2.0);
    assertThat(a.ttftMeanSeedMeanMs()).isEqualTo((4 + 15) / 2.0);
    assertThat(a.regret()).isNull();
    ArmSummary none = Summaries.summarize("kv", List.of(), 1_000);
    assertThat(none.ttftMeanMs()).isNaN();
    assertThat(none.ttftP50SeedMeanMs()).isNaN();
  }

  /** One arm of one seed with these TTFTs. */
  private static ArmSummary arm(String name, double... ttfts) {
    List<RequestResult> r = new ArrayList<>();
    for (double t : ttfts) {
      r.add(ok(name, 0, "w0", t, 10, 0, 1));
    }
    return Summaries.summarize(name, r, 1_000);
  }

  @Test
  void referencesAreTheBestStaticWeightByMeanAndHitMax() {
    // kv-aware@2 has the lower mean (4 < 5) though the higher p50 (4 > 3): it is the best static
    // weight, chosen by mean TTFT. hit-max has the lowest p50 (3.5 < 4) but not the lowest mean.
    List<ArmSummary> arms =
        Summaries.withReferences(
            List.of(
                arm("kv-aware", 6, 6, 6),
                arm("kv-aware@1", 1, 3, 11),
                arm("kv-aware@2", 4, 4, 4),
                arm("hit-max", 3.5, 3.5, 8),
                arm("round-robin", 8, 8, 8)));
    ArmSummary.Regret kv = arms.get(0).regret();
    assertThat(kv.bestStatic()).isEqualTo("kv-aware@2");
    assertThat(kv.p50Reference()).isEqualTo("hit-max");
    assertThat(kv.meanReference()).isEqualTo("kv-aware@2");
    assertThat(kv.p50()).isCloseTo((6 - 3.5) / 3.5, within(1e-12));
    assertThat(kv.mean()).isCloseTo((6 - 4) / 4.0, within(1e-12));
    // kv-aware@1's p50 of 3 beats both references: a negative regret, reported as such.
    assertThat(arms.get(1).regret().p50()).isCloseTo((3 - 3.5) / 3.5, within(1e-12));
    assertThat(arms.get(3).regret().p50()).isZero();
    assertThat(arms).allSatisfy(a -> assertThat(a.regret().bestStatic()).isEqualTo("kv-aware@2"));
  }

  @Test
  void onlyOneKindOfReferenceOrNone() {
    List<ArmSummary> sweepOnly =
        Summaries.withReferences(List.of(arm("kv-aware", 2), arm("kv-aware@8", 1)));
    assertThat(sweepOnly.get(0).regret().p50()).isEqualTo(1.0);
    assertThat(sweepOnly.get(0).regret().p50Reference()).isEqualTo("kv-aware@8");
    List<ArmSummary> hitMaxOnly =
        Summaries.withReferences(List.of(arm("kv-aware", 2), arm("hit-max", 4)));
    assertThat(hitMaxOnly.get(0).regret().bestStatic()).isNull();
    assertThat(hitMaxOnly.get(0).regret().mean()).isEqualTo(-0.5);
    List<ArmSummary> none = Summaries.withReferences(List.of(arm("kv-aware", 2), arm("oracle", 1)));
    assertThat(none).allSatisfy(a -> assertThat(a.regret()).isNull());
    // A reference without successful requests does not count; one at 0 ms leaves regret NaN.
    List<ArmSummary> empty =
        Summaries.withReferences(
            List.of(arm("kv-aware", 2), Summaries.summarize("hit-max", List.of(), 1_000)));
    assertThat(empty.get(0).regret()).isNull();
    List<ArmSummary> zero =
        Summaries.withReferences(List.of(arm("kv-aware", 2), arm("hit-max", 0)));
    assertThat(zero.get(0).regret().p50()).isNaN();
  }

  @Test
  void mixedPoliciesAndBadDurationsAreRefused() {
    List<RequestResult> mixed = List.of(ok("a", 0, "w", 1, 1, 0, 1), ok("b", 0, "w", 1, 1, 0, 1));
    assertThatThrownBy(() -> Summaries.summarize("a", mixed, 1)).hasMessageContaining("'b'");
    assertThatThrownBy(() -> Summaries.summarize("a", List.of(), 0))
        .hasMessageContaining("durationMs");
  }
}
