package io.infera.router.kv;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import net.openhft.hashing.LongHashFunction;

/**
 * Chained XXH3-64 block hashes (docs/contracts.md, "Block hashing"), shared by the router, the
 * relay and the simulator.
 *
 * <p>{@code hashBlock(parent, tokens) = XXH3-64(seed 0, u64_le(parent) ‖ u32_le(t0) ‖ …)}; a
 * request's chain starts at {@link #firstParent(String, String)} and emits one hash per full block;
 * a trailing partial block is dropped.
 *
 * <p>An instance owns a scratch buffer and is not thread-safe: use one per thread. Hashing through
 * an instance allocates nothing per block.
 */
public final class BlockHasher {

  private static final LongHashFunction XX3 = LongHashFunction.xx3();
  private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
  private static final VarHandle LE_INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LE_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final int pageSize;
  // Little-endian machines hash [parent lo, parent hi, t0, t1, …] straight from an int[]; the
  // byte[] path keeps the result identical on big-endian machines.
  private final int[] intScratch;
  private final byte[] byteScratch;

  /**
   * @param pageSize tokens per block, {@code >= 1}
   */
  public BlockHasher(int pageSize) {
    if (pageSize < 1) {
      throw new IllegalArgumentException("pageSize must be >= 1, got " + pageSize);
    }
    this.pageSize = pageSize;
    this.intScratch = LITTLE_ENDIAN ? new int[2 + pageSize] : null;
    this.byteScratch = LITTLE_ENDIAN ? null : new byte[8 + 4 * pageSize];
  }

  public int pageSize() {
    return pageSize;
  }

  /** Hash of one full block: {@code tokens[offset .. offset + pageSize)} chained on parent. */
  public long hashBlock(long parent, int[] tokens, int offset) {
    if (LITTLE_ENDIAN) {
      int[] s = intScratch;
      s[0] = (int) parent;
      s[1] = (int) (parent >>> 32);
      System.arraycopy(tokens, offset, s, 2, pageSize);
      return XX3.hashInts(s, 0, s.length);
    }
    byte[] b = byteScratch;
    LE_LONG.set(b, 0, parent);
    for (int i = 0; i < pageSize; i++) {
      LE_INT.set(b, 8 + 4 * i, tokens[offset + i]);
    }
    return XX3.hashBytes(b, 0, b.length);
  }

  /**
   * Hashes every full block of {@code tokens[from .. to)} into {@code out[outOffset ..]}.
   *
   * @return the number of hashes written, {@code (to - from) / pageSize}
   */
  public int hashChain(int[] tokens, int from, int to, long parent, long[] out, int outOffset) {
    int blocks = (to - from) / pageSize;
    long h = parent;
    for (int b = 0; b < blocks; b++) {
      h = hashBlock(h, tokens, from + b * pageSize);
      out[outOffset + b] = h;
    }
    return blocks;
  }

  /** The router hashes of a request: one per full block, chained from {@code firstParent}. */
  public long[] requestHashes(int[] tokens, long firstParent) {
    long[] out = new long[tokens.length / pageSize];
    hashChain(tokens, 0, tokens.length, firstParent, out, 0);
    return out;
  }

  /**
   * The chain's first parent: 0, or {@code xxh3_64(utf8(lora))} when a LoRA adapter is named; a
   * cache salt then folds in as {@code xxh3_64(u64_le(first) ‖ utf8(salt))}.
   *
   * @param loraName adapter name, or null
   * @param cacheSalt tenant cache salt, or null
   */
  public static long firstParent(String loraName, String cacheSalt) {
    long first = 0L;
    if (loraName != null && !loraName.isEmpty()) {
      first = XX3.hashBytes(loraName.getBytes(StandardCharsets.UTF_8));
    }
    if (cacheSalt != null && !cacheSalt.isEmpty()) {
      byte[] salt = cacheSalt.getBytes(StandardCharsets.UTF_8);
      byte[] buf = new byte[8 + salt.length];
      LE_LONG.set(buf, 0, first);
      System.arraycopy(salt, 0, buf, 8, salt.length);
      first = XX3.hashBytes(buf);
    }
    return first;
  }

  /** Formats a hash the one way it is printed everywhere: 16 lowercase hex digits, unsigned. */
  public static String hex(long hash) {
    String s = Long.toHexString(hash);
    return s.length() == 16 ? s : "0".repeat(16 - s.length()) + s;
  }
}
