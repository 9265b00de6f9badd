package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** Reusing a remembered chain gives exactly the chain a fresh hash gives, whatever it is told. */
class ChainMemoTest {

  private static int[] tokens(Random r, int n) {
    return r.ints(n, 0, 150_000).toArray();
  }

  @Test
  void aPromptCopiedFromAnEarlierOneReusesItsBlocks() {
    Random r = new Random(3);
    ChainMemo memo = new ChainMemo();
    RequestHasher h = new RequestHasher(16, memo);
    int[] first = tokens(r, 16 * 2_000);
    h.hash(first, 0, new int[0]);
    int[] second = Arrays.copyOf(first, 16 * 2_000);
    int[] tail = tokens(r, 16 * 100);
    System.arraycopy(tail, 0, second, 16 * 1_900, tail.length);
    long[] chain = h.hash(second, 0, new int[0], first, 16 * 1_900 + 7).base();
    assertThat(chain).isEqualTo(new BlockHasher(16).requestHashes(second, 0));
    assertThat(memo.reusedBlocks()).isEqualTo(1_900);
    assertThat(memo.hashedBlocks()).isEqualTo(2_000 + 100);
  }

  @Test
  void anotherFirstParentOrAnUnknownSourceReusesNothing() {
    Random r = new Random(4);
    ChainMemo memo = new ChainMemo();
    RequestHasher h = new RequestHasher(4, memo);
    int[] first = tokens(r, 400);
    h.hash(first, 0, new int[0]);
    long salted = BlockHasher.firstParent(null, "tenant-b");
    int[] copy = first.clone();
    assertThat(h.hash(copy, salted, new int[0], first, 400).base())
        .isEqualTo(new BlockHasher(4).requestHashes(copy, salted));
    assertThat(h.hash(copy, 0, new int[0], first.clone(), 400).base())
        .as("looked up by identity: an equal array that was never hashed is unknown")
        .isEqualTo(new BlockHasher(4).requestHashes(copy, 0));
    assertThat(memo.reusedBlocks()).isZero();
  }

  @Test
  void reuseCountsBeyondEitherPromptOrNegativeAreClamped() {
    Random r = new Random(5);
    ChainMemo memo = new ChainMemo();
    RequestHasher h = new RequestHasher(4, memo);
    int[] first = tokens(r, 41);
    h.hash(first, 0, new int[0]);
    int[] shorter = Arrays.copyOf(first, 22);
    assertThat(h.hash(shorter, 0, new int[0], first, 1_000).base())
        .isEqualTo(new BlockHasher(4).requestHashes(shorter, 0));
    int[] longer = Arrays.copyOf(first, 90);
    assertThat(h.hash(longer, 0, new int[0], first, Integer.MAX_VALUE).base())
        .isEqualTo(new BlockHasher(4).requestHashes(longer, 0));
    assertThat(h.hash(longer.clone(), 0, new int[0], longer, -5).base())
        .isEqualTo(new BlockHasher(4).requestHashes(longer, 0));
    assertThat(h.hash(new int[3], 0, new int[0], first, 3).base()).isEmpty();
  }

  @Test
  void otherBlockSizesAreStillHashedInFull() {
    Random r = new Random(6);
    RequestHasher h = new RequestHasher(4, new ChainMemo());
    int[] first = tokens(r, 64);
    h.hash(first, 0, new int[] {8});
    int[] copy = first.clone();
    RequestHashes got = h.hash(copy, 0, new int[] {8}, first, 64);
    assertThat(got.base()).isEqualTo(new BlockHasher(4).requestHashes(copy, 0));
    assertThat(got.chain(8)).isEqualTo(new BlockHasher(8).requestHashes(copy, 0));
  }

  /**
   * Random prompts, a random true shared length with an earlier prompt, the count given right or
   * too small: the chain always equals a fresh hash.
   */
  @Property(tries = 300)
  void alwaysEqualsAFreshHash(
      @ForAll @LongRange(min = 0, max = 1L << 40) long seed,
      @ForAll @IntRange(min = 1, max = 33) int page) {
    Random r = new Random(seed);
    ChainMemo memo = new ChainMemo();
    RequestHasher h = new RequestHasher(page, memo);
    BlockHasher cold = new BlockHasher(page);
    long parent = r.nextBoolean() ? 0 : r.nextLong();
    int[] earlier = tokens(r, r.nextInt(40 * page + 1));
    h.hash(earlier, parent, new int[0]);
    int shared = r.nextInt(earlier.length + 1);
    int[] now = tokens(r, shared + r.nextInt(40 * page + 1));
    System.arraycopy(earlier, 0, now, 0, shared);
    int told = r.nextBoolean() ? shared : r.nextInt(shared + 1);
    assertThat(h.hash(now, parent, new int[0], earlier, told).base())
        .isEqualTo(cold.requestHashes(now, parent));
  }
}
