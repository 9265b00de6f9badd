package io.infera.router.kv;

import java.util.Arrays;

/**
 * Hashes a request's tokens once per block size in use: the router's page size, then every other
 * size the index reports ({@link PrefixIndex#otherBlockSizes}). Not thread-safe (it owns one {@link
 * BlockHasher} per size): use one per thread.
 */
public final class RequestHasher {

  private final BlockHasher base;
  private final ChainMemo memo;
  // One hasher per other size seen so far; sizes come and go rarely, so a linear scan is enough.
  private BlockHasher[] others = new BlockHasher[0];

  public RequestHasher(int pageSize) {
    this(pageSize, null);
  }

  /**
   * @param memo page-size chains shared by every thread's hasher (null: every prompt is hashed in
   *     full)
   */
  public RequestHasher(int pageSize, ChainMemo memo) {
    this.base = new BlockHasher(pageSize);
    this.memo = memo;
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
    return hash(tokens, firstParent, otherSizes, null, 0);
  }

  /**
   * The request's chains, the page-size one reusing the remembered chain of {@code reusedFrom} for
   * the blocks within its first {@code reusedTokens} ids, which {@code tokens} starts with (a copy:
   * {@link io.infera.router.tokenize.Tokenized#reusedFrom}). The page-size chain is then remembered
   * for {@code tokens}, which must not be modified afterwards.
   *
   * @param reusedFrom the earlier prompt's ids, or null
   * @param reusedTokens how many leading ids of {@code tokens} equal those of {@code reusedFrom}
   */
  public RequestHashes hash(
      int[] tokens, long firstParent, int[] otherSizes, int[] reusedFrom, int reusedTokens) {
    long[] chain = baseChain(tokens, firstParent, reusedFrom, reusedTokens);
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

  private long[] baseChain(int[] tokens, long firstParent, int[] reusedFrom, int reusedTokens) {
    if (memo == null) {
      return base.requestHashes(tokens, firstParent);
    }
    int page = base.pageSize();
    long[] chain = new long[tokens.length / page];
    long[] known = reusedFrom == null ? null : memo.chainOf(reusedFrom, firstParent);
    int reused = 0;
    if (known != null) {
      int shared = Math.min(Math.max(0, reusedTokens), Math.min(tokens.length, reusedFrom.length));
      reused = Math.min(shared / page, Math.min(known.length, chain.length));
      System.arraycopy(known, 0, chain, 0, reused);
    }
    long parent = reused == 0 ? firstParent : chain[reused - 1];
    base.hashChain(tokens, reused * page, tokens.length, parent, chain, reused);
    memo.counted(reused, chain.length - reused);
    memo.remember(tokens, firstParent, chain);
    return chain;
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
