package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.sim.sched.EngineConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OracleTest {

  static final long[] FOUR_BLOCKS = {11, 12, 13, 14};

  static Oracle oracle(int workers) {
    return new Oracle(FleetSpec.of(workers, 100), () -> 0L); // time stands still: no drain
  }

  static int[] cached(String csv) {
    String[] parts = csv.split(" ");
    int[] out = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      out[i] = Integer.parseInt(parts[i]);
    }
    return out;
  }

  @ParameterizedTest(name = "cached {0} -> w{1}")
  @CsvSource({
    // the longest true prefix wins on an idle fleet
    "0 4 2, 1",
    "3 0 1, 0",
    "0 0 4, 2",
    // ties go to the earlier engine
    "0 0 0, 0",
    "2 4 4, 1",
    // more than the prompt's blocks counts as all of them: a tie, not a win
    "4 10 0, 0",
  })
  void picksTheLongestTruePrefixOnAnIdleFleet(String cachedBlocks, int winner) {
    Oracle.Pick p = oracle(3).pick(FOUR_BLOCKS, cached(cachedBlocks));
    assertThat(p.worker()).isEqualTo(winner);
    assertThat(p.booking().worker()).isEqualTo(Oracle.workerId(winner));
  }

  @Test
  void bookedLoadSteersTheNextPickAway() {
    Oracle o = oracle(3);
    Oracle.Pick first = o.pick(FOUR_BLOCKS, cached("0 4 4"));
    assertThat(first.worker()).isEqualTo(1);
    // Same caches: w1 now carries the first request's blocks, w2 is as good and idle.
    Oracle.Pick second = o.pick(FOUR_BLOCKS, cached("0 4 4"));
    assertThat(second.worker()).isEqualTo(2);
    assertThat(first.booking().isOpen()).isTrue();
  }

  @ParameterizedTest(name = "overlapWeight {0} -> w{1}")
  @CsvSource({
    // w0 holds the prompt's 4 blocks and has them in flight (cost 0 + 4); w1 has neither
    // (cost 4 × weight): weight 1 is a tie, which the lower load wins.
    "0.0, 1",
    "1.0, 1",
    "2.0, 0",
  })
  void theFleetsOverlapWeightTradesCacheAgainstLoad(double weight, int second) {
    Oracle o =
        new Oracle(new FleetSpec(2, 100, 16, EngineConfig.defaults(), 2.0, weight), () -> 0L);
    assertThat(o.pick(FOUR_BLOCKS, cached("4 0")).worker()).isZero();
    assertThat(o.pick(FOUR_BLOCKS, cached("4 0")).worker()).isEqualTo(second);
  }

  @Test
  void releasedBookingsNoLongerCount() {
    Oracle o = oracle(2);
    o.pick(FOUR_BLOCKS, cached("4 0")).booking().release();
    // With nothing in flight on w0 (and no prefill charged), its cache wins again.
    assertThat(o.pick(FOUR_BLOCKS, cached("4 0")).worker()).isZero();
  }

  @Test
  void needsOneCountPerEngine() {
    assertThatThrownBy(() -> oracle(3).pick(FOUR_BLOCKS, cached("1 2")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected 3");
  }
}
