package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BlockCountsTest {

  @Test
  void overlappingBookingsCountDistinctBlocks() {
    BlockCounts counts = new BlockCounts();
    counts.addAll(new long[] {1, 2, 3});
    counts.addAll(new long[] {2, 3, 4});
    assertThat(counts.distinct()).isEqualTo(4);
    counts.removeAll(new long[] {1, 2, 3});
    assertThat(counts.distinct()).isEqualTo(3);
    counts.removeAll(new long[] {2, 3, 4});
    assertThat(counts.distinct()).isZero();
  }

  @Test
  void removingWhatIsNotHeldIsIgnored() {
    BlockCounts counts = new BlockCounts();
    counts.addAll(new long[] {5});
    counts.removeAll(new long[] {6, 7, 0});
    assertThat(counts.distinct()).isEqualTo(1);
    counts.removeAll(new long[] {5, 5});
    assertThat(counts.distinct()).isZero();
    counts.addAll(new long[] {5});
    assertThat(counts.distinct()).isEqualTo(1);
  }

  @Test
  void blockZeroAndRepeatsWithinOneBooking() {
    BlockCounts counts = new BlockCounts();
    counts.addAll(new long[] {0, 0, 9});
    assertThat(counts.distinct()).isEqualTo(2);
    counts.removeAll(new long[] {0});
    assertThat(counts.distinct()).isEqualTo(2);
    counts.removeAll(new long[] {0, 9});
    assertThat(counts.distinct()).isZero();
  }

  /** Random bookings and releases of large, overlapping prompts against a plain multiset. */
  @Test
  void agreesWithAPlainMultisetOverRandomBookings() {
    Random rnd = new Random(17);
    for (int trial = 0; trial < 20; trial++) {
      BlockCounts counts = new BlockCounts();
      Map<Long, Integer> model = new HashMap<>();
      List<long[]> live = new ArrayList<>();
      for (int step = 0; step < 300; step++) {
        if (live.isEmpty() || rnd.nextInt(3) > 0) {
          long[] blocks = new long[1 + rnd.nextInt(rnd.nextBoolean() ? 8 : 3_000)];
          for (int i = 0; i < blocks.length; i++) {
            blocks[i] = rnd.nextInt(4_000) - 2;
          }
          counts.addAll(blocks);
          for (long b : blocks) {
            model.merge(b, 1, Integer::sum);
          }
          live.add(blocks);
        } else {
          long[] blocks = live.remove(rnd.nextInt(live.size()));
          counts.removeAll(blocks);
          for (long b : blocks) {
            model.computeIfPresent(b, (k, v) -> v == 1 ? null : v - 1);
          }
        }
        assertThat(counts.distinct()).isEqualTo(model.size());
      }
    }
  }
}
