package io.infera.router.kv;

import java.util.List;
import java.util.Map;

/**
 * A point-in-time view of the index's counters, for metrics and the admin API.
 *
 * @param sources per-source state, sorted by source
 * @param blocksPerWorker distinct blocks per worker, summed over its ranks
 * @param entries (block, source) entries in total
 * @param degradedSources sources with a sequence gap not yet resynced
 * @param dropped events (or blocks) not applied, by reason
 */
public record IndexStats(
    List<SourceStats> sources,
    Map<WorkerId, Long> blocksPerWorker,
    long entries,
    int degradedSources,
    Map<DropReason, Long> dropped) {

  public IndexStats {
    sources = List.copyOf(sources);
    blocksPerWorker = Map.copyOf(blocksPerWorker);
    dropped = Map.copyOf(dropped);
  }

  /** Dropped count for one reason. */
  public long dropped(DropReason reason) {
    return dropped.getOrDefault(reason, 0L);
  }

  /**
   * One source's state.
   *
   * @param lastSeq last applied sequence, or null when the source never sent one
   * @param blockSize the block size learned from the source's events or snapshot, or null before
   *     its first full-attention store (the page size is then assumed)
   * @param blockSizeChanges times a store with another block size cleared the view
   */
  public record SourceStats(
      SourceId source,
      long blocks,
      Long lastSeq,
      boolean degraded,
      long batches,
      Integer blockSize,
      long blockSizeChanges) {}
}
