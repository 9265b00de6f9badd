package io.infera.router.kv;

/** One KV-event source: a worker's data-parallel rank, which has its own cache and sequence. */
public record SourceId(WorkerId worker, int dpRank) implements Comparable<SourceId> {

  public SourceId {
    if (worker == null) {
      throw new IllegalArgumentException("worker must not be null");
    }
    if (dpRank < 0) {
      throw new IllegalArgumentException("dp rank must be >= 0, got " + dpRank);
    }
  }

  public static SourceId of(String worker, int dpRank) {
    return new SourceId(WorkerId.of(worker), dpRank);
  }

  @Override
  public int compareTo(SourceId o) {
    int c = worker.compareTo(o.worker);
    return c != 0 ? c : Integer.compare(dpRank, o.dpRank);
  }

  @Override
  public String toString() {
    return worker.value() + "#" + dpRank;
  }
}
