package io.infera.router.runtime;

import io.infera.router.kv.IndexLimits;
import io.infera.router.kv.PrefixIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start-up check of docs/operations.md ("Sizing the index"): warns when the configured index
 * cap, at its worst-case bytes per block, does not fit the heap beside the router's reserve.
 */
final class IndexSizing {

  private static final Logger log = LoggerFactory.getLogger(IndexSizing.class);

  private IndexSizing() {}

  /** Returns whether the cap fits {@code maxHeapBytes}; logs a warning when it does not. */
  static boolean check(IndexLimits limits, long maxHeapBytes) {
    long need = PrefixIndex.routerHeapBytes(limits.maxBlocks(), 64);
    if (need <= maxHeapBytes) {
      return true;
    }
    log.warn(
        "index cap exceeds the heap index_max_blocks={} index_worst_bytes={} reserve_bytes={}"
            + " max_heap_bytes={} (lower index.maxBlocks or give the router more memory)",
        limits.maxBlocks(),
        PrefixIndex.heapBytes(limits.maxBlocks(), 64),
        PrefixIndex.HEAP_RESERVE_BYTES,
        maxHeapBytes);
    return false;
  }
}
