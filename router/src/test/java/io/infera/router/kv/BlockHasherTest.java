package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BlockHasherTest {

  private static final LongHashFunction XX3 = LongHashFunction.xx3();

  /** The definition, written the slow obvious way: the reference the fast path must equal. */
  private static long reference(long parent, int[] tokens, int from, int len) {
    ByteBuffer b = ByteBuffer.allocate(8 + 4 * len).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(parent);
    for (int i = 0; i < len; i++) {
      b.putInt(tokens[from + i]);
    }
    return XX3.hashBytes(b.array());
  }

  @Test
  void goldenVectors() {
    BlockHasher h = new BlockHasher(4);
    assertThat(h.hashBlock(0, new int[] {1, 2, 3, 4}, 0)).isEqualTo(0x341839abbe30be0bL);
    assertThat(h.requestHashes(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0))
        .containsExactly(0x341839abbe30be0bL, 0x37b6de0623bdb5caL);
  }

  @Test
  void trailingPartialBlockIsDroppedAndShortPromptsHaveNoBlocks() {
    BlockHasher h = new BlockHasher(4);
    assertThat(h.requestHashes(new int[] {1, 2, 3}, 0)).isEmpty();
    assertThat(h.requestHashes(new int[] {1, 2, 3, 4, 5, 6, 7}, 0)).hasSize(1);
    assertThat(h.requestHashes(new int[0], 0)).isEmpty();
  }

  @Test
  void fastPathEqualsTheDefinitionOnRandomInput() {
    Random r = new Random(42);
    for (int page : new int[] {1, 4, 16, 32, 64}) {
      BlockHasher h = new BlockHasher(page);
      for (int trial = 0; trial < 200; trial++) {
        int[] tokens = r.ints(page * 3 + r.nextInt(page), 0, 200_000).toArray();
        long parent = r.nextLong();
        long[] chain = new long[3];
        h.hashChain(tokens, 0, tokens.length, parent, chain, 0);
        long expected = parent;
        for (int b = 0; b < 3; b++) {
          expected = reference(expected, tokens, b * page, page);
          assertThat(chain[b]).isEqualTo(expected);
        }
      }
    }
  }

  @Test
  void tokenIdsAboveTwoToThe31AreHashedAsUnsigned32Bit() {
    int[] tokens = {(int) 0xffff_fffeL, 0, 1, (int) 0x8000_0000L};
    assertThat(new BlockHasher(4).hashBlock(7, tokens, 0)).isEqualTo(reference(7, tokens, 0, 4));
  }

  @Test
  void hashChainHonoursOffsets() {
    BlockHasher h = new BlockHasher(2);
    int[] tokens = {9, 9, 1, 2, 3, 4, 9};
    long[] out = new long[5];
    int n = h.hashChain(tokens, 2, 6, 0, out, 3);
    assertThat(n).isEqualTo(2);
    assertThat(out[3]).isEqualTo(reference(0, new int[] {1, 2}, 0, 2));
    assertThat(out[4]).isEqualTo(reference(out[3], new int[] {3, 4}, 0, 2));
    assertThat(out[0]).isZero();
  }

  @Test
  void loraAndSaltChangeTheFirstParentAsSpecified() {
    long lora = XX3.hashBytes("sql-lora".getBytes(StandardCharsets.UTF_8));
    assertThat(BlockHasher.firstParent(null, null)).isZero();
    assertThat(BlockHasher.firstParent("", "")).isZero();
    assertThat(BlockHasher.firstParent("sql-lora", null)).isEqualTo(lora);

    ByteBuffer plainSalt = ByteBuffer.allocate(8 + 4).order(ByteOrder.LITTLE_ENDIAN);
    plainSalt.putLong(0).put("salt".getBytes(StandardCharsets.UTF_8));
    assertThat(BlockHasher.firstParent(null, "salt")).isEqualTo(XX3.hashBytes(plainSalt.array()));

    ByteBuffer both = ByteBuffer.allocate(8 + 4).order(ByteOrder.LITTLE_ENDIAN);
    both.putLong(lora).put("salt".getBytes(StandardCharsets.UTF_8));
    assertThat(BlockHasher.firstParent("sql-lora", "salt")).isEqualTo(XX3.hashBytes(both.array()));

    // A salted or adapter chain never equals the plain one.
    BlockHasher h = new BlockHasher(4);
    int[] t = {1, 2, 3, 4};
    assertThat(h.requestHashes(t, BlockHasher.firstParent("sql-lora", null)))
        .doesNotContain(h.requestHashes(t, 0)[0]);
    assertThat(h.requestHashes(t, BlockHasher.firstParent(null, "salt")))
        .doesNotContain(h.requestHashes(t, 0)[0]);
  }

  @ParameterizedTest
  @CsvSource({
    "0, 0000000000000000",
    "1, 0000000000000001",
    "-1, ffffffffffffffff",
    "3753813699206364683, 341839abbe30be0b"
  })
  void hexIsSixteenLowercaseDigitsUnsigned(long value, String hex) {
    assertThat(BlockHasher.hex(value)).isEqualTo(hex);
  }

  @Test
  void rejectsNonPositivePageSize() {
    assertThatThrownBy(() -> new BlockHasher(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pageSize");
  }
}
