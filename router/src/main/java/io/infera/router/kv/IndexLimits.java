package io.infera.router.kv;

/**
 * What one {@link PrefixIndex} may hold and how often a source may wipe its view
 * (docs/contracts.md, "RouterConfig", keys {@code index.*} and {@code events.resets*}).
 *
 * <p>Blocks are (engine block, source) entries: what a source's view holds, the unit of the index's
 * memory ({@link PrefixIndex#BYTES_PER_BLOCK}). A store beyond either cap is refused and counted
 * ({@link DropReason#SOURCE_FULL}, {@link DropReason#INDEX_FULL}); nothing is evicted, so a view
 * never holds a block its engine did not send and reference counts stay exact. Room comes back as
 * the engines evict ({@code BlockRemoved}).
 *
 * <p>Resets are what empties a non-empty view on a source's say-so: its engine sequence going down
 * (restart), {@code AllBlocksCleared}, a store with another block size. Each source has a token
 * bucket of {@code resetsBurst} tokens refilled at {@code resetsPerMinute}; a reset without a token
 * is refused ({@link DropReason#RESET_RATE_LIMITED}) and the source marked degraded.
 *
 * @param maxBlocksPerSource most blocks one (worker, rank) view holds (&ge; 1)
 * @param maxBlocks most blocks all views hold together (&ge; 1)
 * @param resetsPerMinute refill rate of each source's reset bucket (&gt; 0; {@link
 *     Double#POSITIVE_INFINITY} = no limit)
 * @param resetsBurst the bucket's size: resets accepted back to back (&ge; 1)
 */
public record IndexLimits(
    long maxBlocksPerSource, long maxBlocks, double resetsPerMinute, int resetsBurst) {

  /** Default {@link #maxBlocksPerSource}: 2^20 blocks, 16 M tokens at block size 16. */
  public static final long DEFAULT_MAX_BLOCKS_PER_SOURCE = 1L << 20;

  /**
   * Default {@link #maxBlocks}: 1,800,000, at most 247 MiB by {@link PrefixIndex#heapBytes}, so
   * that with {@link PrefixIndex#HEAP_RESERVE_BYTES} (448 MiB) it fits the operator's default
   * router: 1 Gi at 70 % heap is 717 MiB, {@link PrefixIndex#routerHeapBytes} is 695 MiB.
   */
  public static final long DEFAULT_MAX_BLOCKS = 1_800_000L;

  /** Default {@link #resetsPerMinute}. */
  public static final double DEFAULT_RESETS_PER_MINUTE = 6;

  /** Default {@link #resetsBurst}. */
  public static final int DEFAULT_RESETS_BURST = 3;

  public IndexLimits {
    if (maxBlocksPerSource < 1 || maxBlocks < 1) {
      throw new IllegalArgumentException("maxBlocksPerSource and maxBlocks must be >= 1");
    }
    if (!(resetsPerMinute > 0)) {
      throw new IllegalArgumentException("resetsPerMinute must be > 0");
    }
    if (resetsBurst < 1) {
      throw new IllegalArgumentException("resetsBurst must be >= 1");
    }
  }

  /** The router's defaults. */
  public static IndexLimits defaults() {
    return new IndexLimits(
        DEFAULT_MAX_BLOCKS_PER_SOURCE,
        DEFAULT_MAX_BLOCKS,
        DEFAULT_RESETS_PER_MINUTE,
        DEFAULT_RESETS_BURST);
  }

  /**
   * The default caps without a reset limit: for an index fed by one trusted engine (a relay's view
   * must follow every reset of its engine) and for simulations.
   */
  public static IndexLimits trusted() {
    return new IndexLimits(
        DEFAULT_MAX_BLOCKS_PER_SOURCE,
        DEFAULT_MAX_BLOCKS,
        Double.POSITIVE_INFINITY,
        DEFAULT_RESETS_BURST);
  }

  /** Whether resets are limited at all. */
  public boolean limitsResets() {
    return resetsPerMinute != Double.POSITIVE_INFINITY;
  }
}
