package io.infera.sim.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MultimodalWorkloadTest {

  private static MultimodalWorkload w(double repeat, long seed) {
    return new MultimodalWorkload(
        new MultimodalWorkload.Config(400, 128, 64, 32, 16, repeat, Arrivals.poisson(10), seed));
  }

  @Test
  void everyRequestHasOneImageBehindTheSharedSystemPrompt() {
    MultimodalWorkload m = w(0.5, 1);
    assertThat(m.sessions()).hasSize(400);
    int[] system = m.sessions().get(0).systemTokens();
    assertThat(system).hasSize(128);
    for (Session s : m.sessions()) {
      assertThat(s.systemTokens()).containsExactly(system);
      assertThat(s.turns()).hasSize(1);
      assertThat(s.turns().get(0).images()).hasSize(1);
      assertThat(s.turns().get(0).userTokens()).hasSize(64);
    }
  }

  @Test
  void aboutTheRepeatFractionUsesPopularImagesTheRestAreUnique() {
    Map<Long, Integer> uses = new HashMap<>();
    for (Session s : w(0.5, 2).sessions()) {
      uses.merge(s.turns().get(0).images()[0], 1, Integer::sum);
    }
    long repeated = uses.values().stream().filter(n -> n > 1).count();
    long once = uses.values().stream().filter(n -> n == 1).count();
    assertThat(repeated).isBetween(8L, 16L); // most of the 16 popular images repeat
    assertThat(once).isBetween(160L, 240L); // about half of 400 are unique
    assertThat(w(0, 3).sessions().stream().map(s -> s.turns().get(0).images()[0]).distinct())
        .hasSize(400);
  }

  @Test
  void theSameSeedGivesTheSameWorkload() {
    assertThat(w(0.5, 4).sessions()).isEqualTo(w(0.5, 4).sessions());
    assertThat(w(0.5, 4).sessions()).isNotEqualTo(w(0.5, 5).sessions());
  }

  @Test
  void knobsAreChecked() {
    assertThatThrownBy(
            () -> new MultimodalWorkload.Config(1, 0, 1, 1, 1, 1.5, Arrivals.poisson(1), 0))
        .hasMessageContaining("repeatFraction");
    assertThatThrownBy(
            () -> new MultimodalWorkload.Config(1, -1, 1, 1, 1, 0.5, Arrivals.poisson(1), 0))
        .hasMessageContaining("systemTokens");
  }
}
