package io.infera.sim.workload;

import static io.infera.sim.workload.WorkloadAssertions.assertWellFormed;
import static io.infera.sim.workload.WorkloadAssertions.commonPrefix;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ToolAgentWorkloadTest {

  private static ToolAgentWorkload workload(int agents, int toolsets, double toolMs, long seed) {
    return new ToolAgentWorkload(
        new ToolAgentWorkload.Config(
            agents, toolsets, 256, 16, 5, 12, 6, toolMs, Arrivals.fixedRate(4), seed));
  }

  @Test
  void sizesAndInvariants() {
    ToolAgentWorkload w = workload(12, 3, 0, 1);
    assertWellFormed(w);
    assertThat(w.name()).isEqualTo("tool-agent");
    assertThat(w.sessions()).hasSize(12);
    for (Session s : w.sessions()) {
      assertThat(s.systemTokens()).hasSize(256 + 16);
      assertThat(s.turns()).hasSize(5);
      assertThat(s.turns()).allSatisfy(t -> assertThat(t.userTokens()).hasSize(12));
      assertThat(s.turns()).allSatisfy(t -> assertThat(t.outputTokens()).isEqualTo(6));
      assertThat(s.turns()).allSatisfy(t -> assertThat(t.thinkMs()).isZero());
      assertThat(s.group()).matches("toolset[0-2]");
    }
    assertThat(w.sessions().get(1).startMs()).isEqualTo(250.0);
    WorkloadStats st = w.stats();
    assertThat(st.requests()).isEqualTo(60);
    // Per agent: 5 prompts of 272 tokens plus 12 × (1 + 2 + … + 5) observation tokens.
    assertThat(st.promptTokens()).isEqualTo(12L * (5 * 272 + 12 * 15));
    long used = w.sessions().stream().map(Session::group).distinct().count();
    assertThat(st.distinctPrefixTokens()).isEqualTo(used * 256 + 12L * (16 + 5 * 12));
    assertThat(w.parameters()).containsEntry("toolsets", 3).containsEntry("schema_tokens", 256);
  }

  @Test
  void agentsOfAToolsetShareExactlyTheSchema() {
    List<Session> sessions = workload(40, 4, 100, 2).sessions();
    Map<String, List<Session>> byToolset =
        sessions.stream().collect(Collectors.groupingBy(Session::group));
    // 40 agents over 4 toolsets: each one is used.
    assertThat(byToolset).hasSize(4);
    for (Session a : sessions) {
      for (Session b : sessions) {
        if (a == b) {
          continue;
        }
        int common = commonPrefix(a.systemTokens(), b.systemTokens());
        assertThat(common).isEqualTo(a.group().equals(b.group()) ? 256 : 0);
      }
    }
  }

  @Test
  void toolTimesAreExponentialAfterTheFirstStep() {
    ToolAgentWorkload w = workload(200, 2, 300, 3);
    double sum = 0;
    int n = 0;
    for (Session s : w.sessions()) {
      assertThat(s.turns().get(0).thinkMs()).isZero();
      for (int k = 1; k < s.turns().size(); k++) {
        sum += s.turns().get(k).thinkMs();
        n++;
      }
    }
    // 800 draws of mean 300: the sample mean is within 15 % (about 4 standard errors).
    assertThat(sum / n).isBetween(255.0, 345.0);
  }

  @Test
  void sameSeedSameWorkload() {
    assertThat(workload(10, 3, 50, 7).sessions()).isEqualTo(workload(10, 3, 50, 7).sessions());
    assertThat(workload(10, 3, 50, 7).sessions()).isNotEqualTo(workload(10, 3, 50, 8).sessions());
  }

  @Test
  void knobsOutOfRangeAreNamed() {
    assertThatThrownBy(() -> workload(0, 1, 0, 1)).hasMessageContaining("agents");
    assertThatThrownBy(() -> workload(1, 0, 0, 1)).hasMessageContaining("toolsets");
    assertThatThrownBy(() -> workload(1, 1, -1, 1)).hasMessageContaining("toolMs");
    assertThatThrownBy(
            () -> new ToolAgentWorkload.Config(1, 1, 0, 0, 1, 1, 1, 0, Arrivals.burst(), 1))
        .hasMessageContaining("schemaTokens");
    assertThatThrownBy(
            () ->
                new ToolAgentWorkload.Config(
                    1 << 20, 1, 1, 0, 1 << 12, 1, 1, 0, Arrivals.burst(), 1))
        .hasMessageContaining("too large");
  }
}
