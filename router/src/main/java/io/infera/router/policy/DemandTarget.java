package io.infera.router.policy;

import io.infera.router.kv.WorkerId;

/**
 * Where decode input demand is counted: one decode worker's data-parallel rank (rank 0 for a
 * single-rank worker).
 *
 * @param dpSize the worker's data-parallel size, for the label only
 */
public record DemandTarget(WorkerId worker, int rank, int dpSize) {

  public DemandTarget {
    if (worker == null || rank < 0 || dpSize < 1 || rank >= dpSize) {
      throw new IllegalArgumentException("bad demand target " + worker + " " + rank + "/" + dpSize);
    }
  }

  /**
   * The metrics' {@code target} label: the worker id, or {@code <worker>/<rank>} for a worker with
   * several data-parallel ranks.
   */
  public String label() {
    return dpSize == 1 ? worker.value() : worker.value() + "/" + rank;
  }
}
