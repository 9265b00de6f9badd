package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.kv.WorkerId;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** The pure decode input-demand choice: projected cost, weight, tie-breaks. */
class DemandSelectionTest {

  private static DemandTarget t(String w) {
    return new DemandTarget(WorkerId.of(w), 0, 1);
  }

  private static DemandSelection.Candidate c(String w, long tokens, int requests, double load) {
    return new DemandSelection.Candidate(t(w), tokens, requests, load);
  }

  @Test
  void theTargetWithTheFewestInFlightInputTokensWins() {
    DemandSelection.Choice choice =
        DemandSelection.select(
            List.of(c("a", 9_000, 1, 0), c("b", 2_000, 5, 50), c("c", 4_000, 0, 0)), 1_000, 0);
    assertThat(choice.suggested()).isEqualTo(t("b"));
    assertThat(choice.projected())
        .extracting(DemandSelection.Projected::cost)
        .containsExactly(10_000.0, 3_000.0, 5_000.0);
  }

  @Test
  void theRequestWeightChargesEachRequestTheTargetHolds() {
    // b holds fewer tokens but 5 requests: at W = 1000 they cost 5000 more.
    DemandSelection.Choice choice =
        DemandSelection.select(List.of(c("a", 4_000, 0, 0), c("b", 2_000, 5, 0)), 100, 1_000);
    assertThat(choice.suggested()).isEqualTo(t("a"));
    assertThat(choice.projected().get(1).cost()).isEqualTo(2_000 + 100 + 5_000.0);
  }

  @Test
  void equalCostsGoToTheLowerOriginalLoadThenToTheEarlierCandidate() {
    assertThat(
            DemandSelection.select(List.of(c("a", 100, 1, 9), c("b", 100, 1, 3)), 10, 0)
                .suggested())
        .isEqualTo(t("b"));
    assertThat(
            DemandSelection.select(List.of(c("a", 100, 1, 3), c("b", 100, 1, 3)), 10, 0)
                .suggested())
        .isEqualTo(t("a"));
  }

  @Test
  void noCandidatesIsAnError() {
    assertThatThrownBy(() -> DemandSelection.select(List.of(), 1, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Property(tries = 300)
  void theSuggestionHasTheLowestCostAndTheFirstAmongEqualCostsAndLoads(
      @ForAll @Size(min = 1, max = 12) List<@LongRange(max = 1_000_000) Long> tokens,
      @ForAll @IntRange(max = 50) int requests,
      @ForAll @LongRange(max = 100_000) long request,
      @ForAll @DoubleRange(max = 5_000) double weight) {
    List<DemandSelection.Candidate> cs = new ArrayList<>();
    for (int i = 0; i < tokens.size(); i++) {
      cs.add(c("w" + i, tokens.get(i), (requests + i) % 7, i % 3));
    }
    DemandSelection.Choice choice = DemandSelection.select(cs, request, weight);
    int idx = Integer.parseInt(choice.suggested().worker().value().substring(1));
    double best = choice.projected().get(idx).cost();
    for (int i = 0; i < cs.size(); i++) {
      double cost = choice.projected().get(i).cost();
      assertThat(cost).isGreaterThanOrEqualTo(best);
      if (cost == best) {
        assertThat(cs.get(i).originalLoad()).isGreaterThanOrEqualTo(cs.get(idx).originalLoad());
        if (cs.get(i).originalLoad() == cs.get(idx).originalLoad()) {
          assertThat(i).isGreaterThanOrEqualTo(idx);
        }
      }
    }
  }
}
