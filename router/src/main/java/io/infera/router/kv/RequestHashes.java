package io.infera.router.kv;

import java.util.Arrays;

/**
 * A request's router block hashes: the chain at the router's page size, plus one chain per other
 * block size workers of the fleet use (docs/routing.md, "Block sizes per worker"). Immutable by
 * contract: the arrays are shared, never copied, and must not be written after construction.
 */
public final class RequestHashes {

  private static final int[] NO_SIZES = {};
  private static final long[][] NO_CHAINS = {};
  private static final RequestHashes EMPTY = new RequestHashes(new long[0], NO_SIZES, NO_CHAINS);

  private final long[] base;
  private final int[] sizes;
  private final long[][] chains;

  private RequestHashes(long[] base, int[] sizes, long[][] chains) {
    this.base = base;
    this.sizes = sizes;
    this.chains = chains;
  }

  /** No hashes (no full block, or not tokenized): the request is routed by load. */
  public static RequestHashes empty() {
    return EMPTY;
  }

  /** Only the chain at the router's page size. */
  public static RequestHashes of(long[] base) {
    return base.length == 0 ? EMPTY : new RequestHashes(base, NO_SIZES, NO_CHAINS);
  }

  /**
   * The page-size chain plus {@code chains[i]} hashed at block size {@code sizes[i]}.
   *
   * @throws IllegalArgumentException when the arrays differ in length
   */
  public static RequestHashes of(long[] base, int[] sizes, long[][] chains) {
    if (sizes.length != chains.length) {
      throw new IllegalArgumentException("sizes and chains differ in length");
    }
    return sizes.length == 0 ? of(base) : new RequestHashes(base, sizes, chains);
  }

  /** The chain at the router's page size (the unit of request blocks, hits and load). */
  public long[] base() {
    return base;
  }

  /** Full blocks of the request at the router's page size. */
  public int length() {
    return base.length;
  }

  public boolean isEmpty() {
    return base.length == 0;
  }

  /** The chain at block size {@code size} other than the page size, or null when not hashed. */
  public long[] chain(int size) {
    for (int i = 0; i < sizes.length; i++) {
      if (sizes[i] == size) {
        return chains[i];
      }
    }
    return null;
  }

  /** The other block sizes this request was hashed at. */
  public int[] sizes() {
    return sizes.clone();
  }

  @Override
  public String toString() {
    return "RequestHashes[blocks=" + base.length + ", sizes=" + Arrays.toString(sizes) + "]";
  }
}
