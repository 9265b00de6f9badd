package io.infera.router.policy;

import io.infera.router.kv.MatchResult;
import io.infera.router.kv.WorkerHits;
import io.infera.router.kv.WorkerId;
import java.util.Map;

/**
 * A request's size in blocks and how many leading blocks each worker caches.
 *
 * @param requestBlocks full blocks in the request (0 for a prompt shorter than a block)
 * @param hits per worker; absent workers have 0 (held as an immutable {@link WorkerHits})
 * @param images a multimodal request's image affinity, which replaces the text hits in the kv-aware
 *     cost; null for a text-only request
 */
public record Overlap(int requestBlocks, Map<WorkerId, Integer> hits, ImageOverlap images) {

  public Overlap {
    if (requestBlocks < 0) {
      throw new IllegalArgumentException("requestBlocks must be >= 0");
    }
    hits = WorkerHits.copyOf(hits);
  }

  /** A text-only request's overlap. */
  public Overlap(int requestBlocks, Map<WorkerId, Integer> hits) {
    this(requestBlocks, hits, null);
  }

  /** A multimodal request: no text hits (they cannot be trusted), image affinity instead. */
  public static Overlap multimodal(int requestBlocks, ImageOverlap images) {
    return new Overlap(requestBlocks, Map.of(), images);
  }

  /** True when the request carries images (its overlap term is image affinity). */
  public boolean multimodal() {
    return images != null;
  }

  /** No cache information (tokenization failed, or a policy that ignores the cache). */
  public static Overlap none(int requestBlocks) {
    return new Overlap(requestBlocks, Map.of());
  }

  public static Overlap of(MatchResult match) {
    return new Overlap(match.requestBlocks(), match.byWorker());
  }

  public int hits(WorkerId id) {
    return Math.min(requestBlocks, ((WorkerHits) hits).hitsOf(id));
  }
}
