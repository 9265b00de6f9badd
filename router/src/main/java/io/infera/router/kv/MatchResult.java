package io.infera.router.kv;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result of {@link PrefixIndex#match}: per source, how many leading blocks of the request it
 * holds. Immutable; computed in one pass.
 */
public final class MatchResult {

  private final SourceId[] sources;
  private final int[] hits;
  private final int requestBlocks;

  MatchResult(SourceId[] sources, int[] hits, int requestBlocks) {
    this.sources = sources;
    this.hits = hits;
    this.requestBlocks = requestBlocks;
  }

  /** Full blocks in the request. */
  public int requestBlocks() {
    return requestBlocks;
  }

  /** Leading blocks of the request held by {@code source}; 0 for an unknown source. */
  public int hits(SourceId source) {
    for (int s = 0; s < sources.length; s++) {
      if (source.equals(sources[s])) {
        return hits[s];
      }
    }
    return 0;
  }

  /** The best hit count over all ranks of {@code worker}; 0 for an unknown worker. */
  public int hits(WorkerId worker) {
    int best = 0;
    for (int s = 0; s < sources.length; s++) {
      SourceId id = sources[s];
      if (id != null && id.worker().equals(worker)) {
        best = Math.max(best, hits[s]);
      }
    }
    return best;
  }

  /** The rank of {@code worker} with the most hits (lowest rank on ties), or 0. */
  public int bestRank(WorkerId worker) {
    int best = -1;
    int rank = 0;
    for (int s = 0; s < sources.length; s++) {
      SourceId id = sources[s];
      if (id != null && id.worker().equals(worker)) {
        if (hits[s] > best || (hits[s] == best && id.dpRank() < rank)) {
          best = hits[s];
          rank = id.dpRank();
        }
      }
    }
    return rank;
  }

  /** Best hits per worker (over its ranks), for every worker the index knows. */
  public WorkerHits byWorker() {
    WorkerHits.Builder out = new WorkerHits.Builder(sources.length);
    for (int s = 0; s < sources.length; s++) {
      SourceId id = sources[s];
      if (id != null) {
        out.add(id.worker(), hits[s]);
      }
    }
    return out.build();
  }

  /** Hits per source, for every source the index knows. */
  public Map<SourceId, Integer> bySource() {
    Map<SourceId, Integer> out = new LinkedHashMap<>();
    for (int s = 0; s < sources.length; s++) {
      if (sources[s] != null) {
        out.put(sources[s], hits[s]);
      }
    }
    return out;
  }
}
