package io.infera.sim.bench;

import static io.infera.sim.bench.OracleTest.FOUR_BLOCKS;
import static io.infera.sim.bench.OracleTest.cached;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.sim.sched.EngineConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HitMaxPickerTest {

  static HitMaxPicker picker(int workers) {
    return new HitMaxPicker(FleetSpec.of(workers, 100), () -> 0L); // time stands still
  }

  @ParameterizedTest(name = "cached {0} -> w{1}")
  @CsvSource({
    "0 4 2, 1",
    "3 0 1, 0",
    // ties (idle fleet) go to the earlier engine
    "0 0 0, 0",
    "2 4 4, 1",
    // more than the prompt's blocks counts as all of them; negative counts as none
    "4 10 0, 0",
    "-3 0 1, 2",
  })
  void picksTheMostCachedBlocks(String cachedBlocks, int winner) {
    Oracle.Pick p = picker(3).pick(FOUR_BLOCKS, cached(cachedBlocks));
    assertThat(p.worker()).isEqualTo(winner);
    assertThat(p.booking().worker()).isEqualTo(Oracle.workerId(winner));
  }

  @Test
  void loadNeverOutweighsAHit() {
    HitMaxPicker h = picker(2);
    // The kv-aware oracle at weight 0 would move the second and third requests to idle w1.
    for (int i = 0; i < 3; i++) {
      assertThat(h.pick(FOUR_BLOCKS, cached("1 0")).worker()).isZero();
    }
    Oracle o = new Oracle(new FleetSpec(2, 100, 16, EngineConfig.defaults(), 2.0, 0.0), () -> 0L);
    o.pick(FOUR_BLOCKS, cached("1 0"));
    assertThat(o.pick(FOUR_BLOCKS, cached("1 0")).worker()).isEqualTo(1);
  }

  @Test
  void tiesGoToTheLeastLoaded() {
    HitMaxPicker h = picker(3);
    Oracle.Pick first = h.pick(FOUR_BLOCKS, cached("2 2 2"));
    assertThat(first.worker()).isZero();
    // w0 carries the first request: the next tie goes to w1, then w2.
    assertThat(h.pick(FOUR_BLOCKS, cached("2 2 2")).worker()).isEqualTo(1);
    assertThat(h.pick(FOUR_BLOCKS, cached("2 2 2")).worker()).isEqualTo(2);
    first.booking().release();
    // Released and its charge faded below the others': w0 is the lightest again (ties by load
    // first, then requests in flight).
    assertThat(h.pick(FOUR_BLOCKS, cached("2 2 2")).worker()).isZero();
  }

  @Test
  void needsOneCountPerEngine() {
    assertThatThrownBy(() -> picker(3).pick(FOUR_BLOCKS, cached("1 2")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected 3");
  }

  @Test
  void theArmChoosesItsPicker() {
    assertThat(TrueCachePicker.of(Arm.hitMax(), FleetSpec.of(2, 10), () -> 0L))
        .isInstanceOf(HitMaxPicker.class);
    assertThat(TrueCachePicker.of(Arm.oracle(), FleetSpec.of(2, 10), () -> 0L))
        .isInstanceOf(Oracle.class);
    assertThat(TrueCachePicker.of(Arm.fixedWeight(4), FleetSpec.of(2, 10), () -> 0L)).isNull();
  }
}
