package io.infera.router.policy;

/**
 * One worker's load at a pick.
 *
 * @param activeBlocks distinct blocks of in-flight requests booked on the worker
 * @param recentBlocks booked prefill blocks not yet done (see {@link LoadTracker})
 * @param inFlight requests in flight on the worker
 */
public record WorkerLoad(long activeBlocks, double recentBlocks, int inFlight) {

  public static final WorkerLoad IDLE = new WorkerLoad(0, 0, 0);

  /** The load term of the cost: {@code active_blocks + recent_blocks}. */
  public double total() {
    return activeBlocks + recentBlocks;
  }
}
