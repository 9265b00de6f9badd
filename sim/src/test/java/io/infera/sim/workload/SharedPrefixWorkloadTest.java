package io.infera.sim.workload;

import static io.infera.sim.workload.WorkloadAssertions.assertWellFormed;
import static io.infera.sim.workload.WorkloadAssertions.commonPrefix;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SharedPrefixWorkloadTest {

  private static SharedPrefixWorkload workload(long seed) {
    return new SharedPrefixWorkload(
        new SharedPrefixWorkload.Config(6, 10, 128, 16, 8, Arrivals.poisson(100), seed));
  }

  @Test
  void sizesAndInvariants() {
    SharedPrefixWorkload w = workload(1);
    assertWellFormed(w);
    assertThat(w.sessions()).hasSize(60);
    for (Session s : w.sessions()) {
      assertThat(s.systemTokens()).hasSize(128);
      assertThat(s.turns()).hasSize(1);
      assertThat(s.turns().get(0).userTokens()).hasSize(16);
      assertThat(s.turns().get(0).outputTokens()).isEqualTo(8);
      assertThat(s.id()).startsWith(s.group() + "-p");
    }
    WorkloadStats st = w.stats();
    assertThat(st.requests()).isEqualTo(60);
    assertThat(st.promptTokens()).isEqualTo(60L * (128 + 16));
    assertThat(st.promptTokensUpperBound()).isEqualTo(st.promptTokens());
    assertThat(st.outputTokens()).isEqualTo(60L * 8);
    assertThat(st.distinctPrefixTokens()).isEqualTo(6L * 128 + 60L * 16);
    assertThat(st.idealHitRatio()).isEqualTo(1 - (6.0 * 128 + 60 * 16) / (60 * 144));
  }

  @Test
  void groupsShareTheirSystemPromptAndNothingElse() {
    Map<String, int[]> systemOf = new HashMap<>();
    List<Session> sessions = workload(2).sessions();
    for (Session s : sessions) {
      int[] seen = systemOf.putIfAbsent(s.group(), s.systemTokens());
      if (seen != null) {
        assertThat(s.systemTokens()).containsExactly(seen);
      }
    }
    assertThat(systemOf).hasSize(6);
    for (int[] a : systemOf.values()) {
      for (int[] b : systemOf.values()) {
        if (a != b) {
          assertThat(commonPrefix(a, b)).isZero();
        }
      }
    }
    // Within a group, prompts diverge right after the system prompt.
    for (Session a : sessions) {
      for (Session b : sessions) {
        if (a != b && a.group().equals(b.group())) {
          assertThat(commonPrefix(a.turns().get(0).userTokens(), b.turns().get(0).userTokens()))
              .isZero();
        }
      }
    }
  }

  @Test
  void arrivalsInterleaveTheGroups() {
    List<Session> sessions = workload(3).sessions();
    int switches = 0;
    for (int i = 1; i < sessions.size(); i++) {
      if (!sessions.get(i).group().equals(sessions.get(i - 1).group())) {
        switches++;
      }
    }
    // Grouped in blocks there would be 5 switches; a random order of 6 groups gives ~50.
    assertThat(switches).isGreaterThan(30);
    assertThat(sessions.get(0).startMs()).isZero();
  }

  @Test
  void deterministicPerSeed() {
    assertThat(workload(7).sessions()).isEqualTo(workload(7).sessions());
    assertThat(workload(7).sessions()).isNotEqualTo(workload(8).sessions());
  }

  @Test
  void goldenValuesPinTheGenerator() {
    // A changed RNG, vocabulary or stream layout would silently change every benchmark.
    List<Session> sessions = workload(42).sessions();
    assertThat(sessions.get(0).id()).isEqualTo("g0-p0");
    assertThat(Arrays.copyOf(sessions.get(0).systemTokens(), 4))
        .containsExactly(1000, 1000, 1073, 2638);
    assertThat(sessions.get(1).id()).isEqualTo("g2-p5");
    assertThat(sessions.get(1).startMs()).isEqualTo(2.45106372405669);
  }

  @Test
  void contentDoesNotDependOnTheArrivalProcess() {
    SharedPrefixWorkload poisson = workload(5);
    SharedPrefixWorkload fixed =
        new SharedPrefixWorkload(
            new SharedPrefixWorkload.Config(6, 10, 128, 16, 8, Arrivals.fixedRate(3), 5));
    assertThat(fixed.sessions())
        .extracting(Session::id)
        .isEqualTo(poisson.sessions().stream().map(Session::id).toList());
    assertThat(fixed.sessions().get(0).turns()).isEqualTo(poisson.sessions().get(0).turns());
    assertThat(fixed.sessions().get(9).startMs()).isEqualTo(3000);
  }

  @ParameterizedTest(name = "{0} of {1}×{2} blocks of {3}, system {4} → {5} groups")
  @CsvSource({
    // fraction, workers, blocksPerWorker, blockSize, systemTokens, groups
    "0.5, 4, 1000, 16, 1024, 31", // 2000 blocks / 64 per prompt = 31.25
    "1.0, 4, 1000, 16, 1024, 63", // 62.5: halves round up
    "0.25, 8, 2048, 16, 2048, 32", // 4096 / 128
    "0.01, 1, 100, 16, 1024, 1", // below one group still gives one
    "2.0, 2, 500, 16, 1000, 32", // only the 62 full blocks count: 2000 / 62 = 32.3
  })
  void groupsForWorkingSet(
      double fraction, int workers, int blocks, int blockSize, int systemTokens, int groups) {
    assertThat(
            SharedPrefixWorkload.groupsForWorkingSet(
                fraction, workers, blocks, blockSize, systemTokens))
        .isEqualTo(groups);
  }

  @Test
  void forWorkingSetReachesTheFraction() {
    SharedPrefixWorkload w =
        SharedPrefixWorkload.forWorkingSet(0.5, 4, 1000, 16, 3, 1024, 32, 16, Arrivals.burst(), 1);
    assertThat(w.config().groups()).isEqualTo(31);
    assertThat(w.sessions()).hasSize(93);
    assertThat(w.workingSetFraction(4, 1000, 16)).isEqualTo(31 * 64 / 4000.0);
  }

  @Test
  void badKnobsAreNamed() {
    assertThatThrownBy(() -> SharedPrefixWorkload.groupsForWorkingSet(0.5, 4, 1000, 16, 15))
        .hasMessageContaining("systemTokens (15)");
    assertThatThrownBy(() -> SharedPrefixWorkload.groupsForWorkingSet(0, 4, 1000, 16, 64))
        .hasMessageContaining("fractionOfFleetKv");
    assertThatThrownBy(() -> SharedPrefixWorkload.groupsForWorkingSet(0.5, 0, 1000, 16, 64))
        .hasMessageContaining("workers");
    assertThatThrownBy(() -> new SharedPrefixWorkload.Config(0, 1, 1, 1, 1, Arrivals.burst(), 0))
        .hasMessageContaining("groups");
    assertThatThrownBy(() -> new SharedPrefixWorkload.Config(1, 1, 1, 0, 1, Arrivals.burst(), 0))
        .hasMessageContaining("questionTokens");
  }
}
