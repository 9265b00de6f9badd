package io.infera.router.kv;

import java.util.Arrays;

/**
 * Hashes a request's tokens once per block size in use: the router's page size, then every other
 * size the index reports ({@link PrefixIndex#otherBlockSizes}). Not thread-safe (it owns one {@link
 * BlockHasher} per size): use one per thread.
 */
public final class RequestHasher {

  private final BlockHasher base;
  // One hasher per other size seen so far; sizes come and go rarely, so a linear scan is enough.
  private BlockHasher[] others = new BlockHasher[0];

  public RequestHasher(int pageSize) {
    this.base = new BlockHasher(pageSize);
  }

  public int pageSize() {
    return base.pageSize();
  }

  /**
   * The request's chains.
   *
   * @param otherSizes block sizes besides the page size to hash at (each at most once; the page
   *     size itself is skipped)
   */
  public RequestHashes hash(int[] tokens, long firstParent, int[] otherSizes) {
    long[] chain = base.requestHashes(tokens, firstParent);
    if (otherSizes.length == 0) {
      return RequestHashes.of(chain);
    }
    int[] sizes = new int[otherSizes.length];
    long[][] chains = new long[otherSizes.length][];
    int n = 0;
    for (int size : otherSizes) {
      if (size == base.pageSize()) {
        continue;
      }
      sizes[n] = size;
      chains[n++] = hasher(size).requestHashes(tokens, firstParent);
    }
    if (n < sizes.length) {
      sizes = Arrays.copyOf(sizes, n);
      chains = Arrays.copyOf(chains, n);
    }
    return RequestHashes.of(chain, sizes, chains);
  }

  private BlockHasher hasher(int size) {
    for (BlockHasher h : others) {
      if (h.pageSize() == size) {
        return h;
      }
    }
    BlockHasher h = new BlockHasher(size);
    BlockHasher[] grown = Arrays.copyOf(others, others.length + 1);
    grown[others.length] = h;
    // Sizes that left the fleet are not pruned: at most PrefixIndex.MAX_BLOCK_SIZES live at once,
    // and a fleet that cycles through many sizes is a configuration problem seen in the status.
    others = grown.length > 2 * PrefixIndex.MAX_BLOCK_SIZES ? new BlockHasher[] {h} : grown;
    return h;
  }
}
