package io.infera.operator.status;

/**
 * The routers' own view of the fleet, from one replica's {@code GET /v1/admin/status}.
 *
 * @param ready the replica reports itself ready (discovery synced, index warm)
 * @param workers workers the replica discovered
 * @param indexedBlocks (block, worker rank) entries in its prefix index
 * @param maxEventLagSeconds the largest per-source KV-event lag, null when no source reported one
 * @param hitRatio predicted prefix-cache hit ratio in [0, 1], null before the first request
 * @param sources KV-event sources (worker, dp rank) the replica knows
 * @param degradedSources sources with a sequence gap not yet resynced
 */
public record RouterView(
    boolean ready,
    int workers,
    long indexedBlocks,
    Double maxEventLagSeconds,
    Double hitRatio,
    int sources,
    int degradedSources) {

  public RouterView {
    if (workers < 0 || indexedBlocks < 0 || sources < 0 || degradedSources < 0) {
      throw new IllegalArgumentException("negative count in " + this);
    }
  }
}
