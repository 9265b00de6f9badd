package io.infera.router.policy;

import io.infera.router.kv.MatchResult;
import io.infera.router.kv.WorkerId;
import java.util.Map;

/**
 * A request's size in blocks and how many leading blocks each worker caches.
 *
 * @param requestBlocks full blocks in the request (0 for a prompt shorter than a block)
 * @param hits per worker; absent workers have 0
 */
public record Overlap(int requestBlocks, Map<WorkerId, Integer> hits) {

  public Overlap {
    if (requestBlocks < 0) {
      throw new IllegalArgumentException("requestBlocks must be >= 0");
    }
    hits = Map.copyOf(hits);
  }

  /** No cache information (tokenization failed, or a policy that ignores the cache). */
  public static Overlap none(int requestBlocks) {
    return new Overlap(requestBlocks, Map.of());
  }

  public static Overlap of(MatchResult match) {
    return new Overlap(match.requestBlocks(), match.byWorker());
  }

  public int hits(WorkerId id) {
    return Math.min(requestBlocks, hits.getOrDefault(id, 0));
  }
}
