package io.infera.operator.status;

import java.util.List;

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
 * @param blockSizeOverridden workers whose KV events use another block size than the router's
 *     {@code pageSize} (an attention backend forced it), each as {@code "id (seen, expected
 *     expected)"}, sorted; at most {@link #MAX_NAMED} are kept
 * @param indexAccurate the router's {@code IndexAccurate} condition, null when its status has none
 * @param renderParity the router's {@code render_parity} condition, null when its status has none
 */
public record RouterView(
    boolean ready,
    int workers,
    long indexedBlocks,
    Double maxEventLagSeconds,
    Double hitRatio,
    int sources,
    int degradedSources,
    List<String> blockSizeOverridden,
    IndexAccurate indexAccurate,
    RenderParity renderParity) {

  /**
   * The router's {@code index_accurate}: {@code status} is {@code True}, {@code False} or {@code
   * Unknown}; {@code reason} CamelCase; {@code message} for people, at most {@link #MAX_MESSAGE}
   * characters.
   */
  public record IndexAccurate(String status, String reason, String message) {
    public static final int MAX_MESSAGE = 512;
  }

  /**
   * The router's {@code render_parity}: {@code status} True, False or Unknown; {@code reason}
   * CamelCase; {@code diverged} the diverging workers it names (at most {@link #MAX_NAMED}).
   */
  public record RenderParity(String status, String reason, String message, List<String> diverged) {
    public RenderParity {
      diverged = List.copyOf(diverged);
    }
  }

  /** A view of a router that reports no {@code render_parity}. */
  public RouterView(
      boolean ready,
      int workers,
      long indexedBlocks,
      Double maxEventLagSeconds,
      Double hitRatio,
      int sources,
      int degradedSources,
      List<String> blockSizeOverridden,
      IndexAccurate indexAccurate) {
    this(
        ready,
        workers,
        indexedBlocks,
        maxEventLagSeconds,
        hitRatio,
        sources,
        degradedSources,
        blockSizeOverridden,
        indexAccurate,
        null);
  }

  /** Workers named in {@link #blockSizeOverridden} at most (a condition message stays short). */
  public static final int MAX_NAMED = 10;

  public RouterView {
    if (workers < 0 || indexedBlocks < 0 || sources < 0 || degradedSources < 0) {
      throw new IllegalArgumentException("negative count in " + this);
    }
    blockSizeOverridden = List.copyOf(blockSizeOverridden);
  }

  /** A view of a router that reports no {@code index_accurate}. */
  public RouterView(
      boolean ready,
      int workers,
      long indexedBlocks,
      Double maxEventLagSeconds,
      Double hitRatio,
      int sources,
      int degradedSources,
      List<String> blockSizeOverridden) {
    this(
        ready,
        workers,
        indexedBlocks,
        maxEventLagSeconds,
        hitRatio,
        sources,
        degradedSources,
        blockSizeOverridden,
        null);
  }

  /** A view in which every worker uses the router's page size. */
  public RouterView(
      boolean ready,
      int workers,
      long indexedBlocks,
      Double maxEventLagSeconds,
      Double hitRatio,
      int sources,
      int degradedSources) {
    this(
        ready,
        workers,
        indexedBlocks,
        maxEventLagSeconds,
        hitRatio,
        sources,
        degradedSources,
        List.of());
  }
}
