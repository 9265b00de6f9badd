package io.infera.sim.workload;

import static io.infera.sim.workload.WorkloadAssertions.assertWellFormed;
import static io.infera.sim.workload.WorkloadAssertions.commonPrefix;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infera.sim.workload.MultiTurnWorkload.ThinkTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MultiTurnWorkloadTest {

  private static MultiTurnWorkload workload(
      int shared, ThinkTime think, Arrivals arrivals, long seed) {
    return new MultiTurnWorkload(
        new MultiTurnWorkload.Config(8, 4, 32, shared, 24, 16, 500, think, arrivals, seed));
  }

  @Test
  void sizesAndInvariants() {
    MultiTurnWorkload w = workload(64, ThinkTime.FIXED, Arrivals.fixedRate(2), 1);
    assertWellFormed(w);
    assertThat(w.sessions()).hasSize(8);
    for (Session s : w.sessions()) {
      assertThat(s.systemTokens()).hasSize(64 + 32);
      assertThat(s.turns()).hasSize(4);
      assertThat(s.turns()).extracting(Turn::thinkMs).containsExactly(0.0, 500.0, 500.0, 500.0);
      assertThat(s.turns()).allSatisfy(t -> assertThat(t.userTokens()).hasSize(24));
      assertThat(s.group()).isEqualTo("shared");
    }
    assertThat(w.sessions())
        .extracting(Session::startMs)
        .containsExactly(0.0, 500.0, 1000.0, 1500.0, 2000.0, 2500.0, 3000.0, 3500.0);
    WorkloadStats st = w.stats();
    assertThat(st.requests()).isEqualTo(32);
    // Per conversation: 96 + (96+24) + … prompts without answers: 4×96 + 24×(1+2+3+4).
    assertThat(st.promptTokens()).isEqualTo(8L * (4 * 96 + 24 * 10));
    // With answers at full length: + 16×(0+1+2+3) per conversation.
    assertThat(st.promptTokensUpperBound()).isEqualTo(st.promptTokens() + 8L * 16 * 6);
    assertThat(st.outputTokens()).isEqualTo(8L * 4 * 16);
    assertThat(st.distinctPrefixTokens()).isEqualTo(64 + 8L * (32 + 4 * 24));
  }

  @Test
  void sharedSystemPartIsCommonAndTheRestIsOwn() {
    List<Session> sessions = workload(64, ThinkTime.FIXED, Arrivals.burst(), 2).sessions();
    for (Session a : sessions) {
      for (Session b : sessions) {
        if (a != b) {
          assertThat(commonPrefix(a.systemTokens(), b.systemTokens())).isEqualTo(64);
        }
      }
    }
    List<Session> unshared = workload(0, ThinkTime.FIXED, Arrivals.burst(), 2).sessions();
    assertThat(commonPrefix(unshared.get(0).systemTokens(), unshared.get(1).systemTokens()))
        .isZero();
    assertThat(unshared).extracting(Session::group).doesNotHaveDuplicates();
  }

  @Test
  void conversationsWithoutSystemPromptsStillDivergeAtOnce() {
    MultiTurnWorkload w =
        new MultiTurnWorkload(
            new MultiTurnWorkload.Config(
                5, 2, 0, 0, 8, 4, 0, ThinkTime.FIXED, Arrivals.burst(), 3));
    List<int[]> firsts = new ArrayList<>();
    for (Session s : w.sessions()) {
      assertThat(s.systemText()).isEmpty();
      assertThat(s.messages(0, List.of())).hasSize(1);
      firsts.add(s.turns().get(0).userTokens());
    }
    for (int[] a : firsts) {
      for (int[] b : firsts) {
        if (a != b) {
          assertThat(commonPrefix(a, b)).isZero();
        }
      }
    }
  }

  @Test
  void exponentialThinkTimesHaveTheRequestedMean() {
    MultiTurnWorkload w =
        new MultiTurnWorkload(
            new MultiTurnWorkload.Config(
                400, 11, 8, 0, 8, 4, 2000, ThinkTime.EXPONENTIAL, Arrivals.poisson(5), 4));
    double sum = 0;
    int n = 0;
    for (Session s : w.sessions()) {
      assertThat(s.turns().get(0).thinkMs()).isZero();
      for (Turn t : s.turns().subList(1, s.turns().size())) {
        sum += t.thinkMs();
        n++;
      }
    }
    assertThat(n).isEqualTo(4000);
    assertThat(sum / n).isCloseTo(2000, within(130.0)); // ±4 standard errors
  }

  @Test
  void messagesOfALaterTurnCarryTheHistory() {
    Session s = workload(16, ThinkTime.FIXED, Arrivals.burst(), 5).sessions().get(3);
    List<Map<String, Object>> m = s.messages(2, List.of("first answer", "second answer"));
    assertThat(m)
        .extracting(x -> x.get("role"))
        .containsExactly("system", "user", "assistant", "user", "assistant", "user");
    assertThat(m.get(0).get("content")).isEqualTo(s.systemText());
    assertThat(m.get(5).get("content")).isEqualTo(s.turns().get(2).userText());
    int[] answer = {1000, 1001};
    int[] prompt = s.promptTokens(1, List.of(answer));
    assertThat(prompt).hasSize(s.systemTokens().length + 24 + 2 + 24);
    assertThat(
            Arrays.copyOfRange(prompt, s.systemTokens().length + 24, s.systemTokens().length + 26))
        .containsExactly(answer);
  }

  @Test
  void deterministicPerSeed() {
    assertThat(workload(8, ThinkTime.EXPONENTIAL, Arrivals.poisson(3), 9).sessions())
        .isEqualTo(workload(8, ThinkTime.EXPONENTIAL, Arrivals.poisson(3), 9).sessions())
        .isNotEqualTo(workload(8, ThinkTime.EXPONENTIAL, Arrivals.poisson(3), 10).sessions());
  }

  @Test
  void badKnobsAreNamed() {
    assertThatThrownBy(
            () ->
                new MultiTurnWorkload.Config(
                    1, 0, 0, 0, 1, 1, 0, ThinkTime.FIXED, Arrivals.burst(), 0))
        .hasMessageContaining("turns");
    assertThatThrownBy(
            () ->
                new MultiTurnWorkload.Config(
                    1, 1, 0, 0, 1, 1, -1, ThinkTime.FIXED, Arrivals.burst(), 0))
        .hasMessageContaining("thinkMs");
  }
}
