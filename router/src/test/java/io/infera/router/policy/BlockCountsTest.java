package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.BlockHasher;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class BlockCountsTest {

  @Test
  void bookingsSharingAPrefixCountItOnce() {
    BlockCounts counts = new BlockCounts();
    counts.addAll(new long[] {1, 2, 3});
    counts.addAll(new long[] {1, 2, 4});
    assertThat(counts.distinct()).isEqualTo(4);
    counts.addAll(new long[] {1, 2});
    assertThat(counts.distinct()).as("a prefix of a held chain adds nothing").isEqualTo(4);
    counts.addAll(new long[] {7});
    assertThat(counts.distinct()).isEqualTo(5);
    counts.removeAll(new long[] {1, 2, 3});
    assertThat(counts.distinct()).isEqualTo(4);
    counts.removeAll(new long[] {1, 2, 4});
    assertThat(counts.distinct()).as("[1, 2] and [7] are left").isEqualTo(3);
    counts.removeAll(new long[] {1, 2});
    counts.removeAll(new long[] {7});
    assertThat(counts.distinct()).isZero();
  }

  @Test
  void equalChainsAreCountedOnceAndReleasedOneAtATime() {
    BlockCounts counts = new BlockCounts();
    long[] a = {5, 6};
    counts.addAll(a);
    counts.addAll(new long[] {5, 6});
    assertThat(counts.distinct()).isEqualTo(2);
    counts.removeAll(new long[] {5, 6});
    assertThat(counts.distinct()).isEqualTo(2);
    counts.removeAll(a);
    assertThat(counts.distinct()).isZero();
  }

  @Test
  void releasingWhatIsNotHeldOrNothingIsIgnored() {
    BlockCounts counts = new BlockCounts();
    counts.addAll(new long[] {5, 8});
    counts.removeAll(new long[] {5});
    counts.removeAll(new long[] {5, 8, 9});
    counts.removeAll(new long[] {6, 7, 0});
    counts.addAll(new long[0]);
    counts.removeAll(new long[0]);
    assertThat(counts.distinct()).isEqualTo(2);
    counts.removeAll(new long[] {5, 8});
    assertThat(counts.distinct()).isZero();
    counts.removeAll(new long[] {5, 8});
    assertThat(counts.distinct()).isZero();
  }

  @Test
  void extremeHashValuesOrderCorrectly() {
    BlockCounts counts = new BlockCounts();
    counts.addAll(new long[] {Long.MIN_VALUE, 0});
    counts.addAll(new long[] {Long.MAX_VALUE});
    counts.addAll(new long[] {Long.MIN_VALUE, -1});
    counts.addAll(new long[] {0});
    assertThat(counts.distinct()).isEqualTo(5);
    counts.removeAll(new long[] {Long.MIN_VALUE, 0});
    assertThat(counts.distinct()).isEqualTo(4);
  }

  /**
   * Random bookings and releases of real router block-hash chains (prompts of up to 3,000 blocks
   * drawn from a few shared prefixes, so chains overlap, nest and repeat) against a plain multiset
   * of their blocks: for hash chains, distinct prefixes are distinct blocks.
   */
  @Property(tries = 40)
  void agreesWithAPlainMultisetOfBlocksOverRandomBookings(
      @ForAll @LongRange(min = 0, max = 1L << 40) long seed) {
    Random rnd = new Random(seed);
    BlockHasher hasher = new BlockHasher(2);
    int[][] stems = new int[4][];
    for (int i = 0; i < stems.length; i++) {
      stems[i] = rnd.ints(2 * (1 + rnd.nextInt(1_500)), 0, 50).toArray();
    }
    BlockCounts counts = new BlockCounts();
    Map<Long, Integer> model = new HashMap<>();
    List<long[]> live = new ArrayList<>();
    for (int step = 0; step < 200; step++) {
      if (live.isEmpty() || rnd.nextInt(3) > 0) {
        long[] blocks;
        if (!live.isEmpty() && rnd.nextInt(5) == 0) {
          blocks = live.get(rnd.nextInt(live.size())).clone(); // an equal chain
        } else {
          int[] stem = stems[rnd.nextInt(stems.length)];
          int keep = rnd.nextInt(stem.length + 1);
          int[] tokens = new int[keep + 2 * rnd.nextInt(rnd.nextBoolean() ? 4 : 1_500)];
          System.arraycopy(stem, 0, tokens, 0, keep);
          for (int i = keep; i < tokens.length; i++) {
            tokens[i] = rnd.nextInt(50);
          }
          blocks = hasher.requestHashes(tokens, 0);
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
