package io.infera.sim.workload;

import static io.infera.sim.workload.WorkloadAssertions.assertWellFormed;
import static io.infera.sim.workload.WorkloadAssertions.commonPrefix;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NoReuseWorkloadTest {

  private static NoReuseWorkload workload(int prompts, long seed) {
    return new NoReuseWorkload(
        new NoReuseWorkload.Config(prompts, 64, 16, Arrivals.poisson(20), seed));
  }

  @Test
  void noTwoPromptsShareAPrefix() {
    NoReuseWorkload w = workload(300, 1);
    assertWellFormed(w);
    Set<Integer> firstTokens = new HashSet<>();
    for (Session s : w.sessions()) {
      assertThat(s.systemTokens()).isEmpty();
      assertThat(s.group()).isEqualTo(s.id());
      assertThat(firstTokens.add(s.turns().get(0).userTokens()[0])).isTrue();
    }
    assertThat(w.stats().distinctPrefixTokens()).isEqualTo(w.stats().promptTokens());
    assertThat(w.stats().idealHitRatio()).isZero();
  }

  @Test
  void beyondTheVocabularySizePromptsShareAtMostOneToken() {
    List<Session> sessions = workload(4500, 2).sessions();
    int[] a = promptOf(sessions, "n7");
    int[] b = promptOf(sessions, "n2007");
    assertThat(commonPrefix(a, b)).isEqualTo(1);
  }

  private static int[] promptOf(List<Session> sessions, String id) {
    for (Session s : sessions) {
      if (s.id().equals(id)) {
        return s.turns().get(0).userTokens();
      }
    }
    throw new AssertionError("no session " + id);
  }

  @Test
  void deterministicPerSeed() {
    assertThat(workload(20, 3).sessions())
        .isEqualTo(workload(20, 3).sessions())
        .isNotEqualTo(workload(20, 4).sessions());
    assertThat(workload(20, 3).parameters()).containsEntry("workload", "no-reuse");
  }
}
