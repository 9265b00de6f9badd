package io.infera.router.kv;

import java.util.List;

/**
 * One decoded batch payload: what an engine publishes per ZMQ message.
 *
 * @param ts engine timestamp, seconds since the epoch
 * @param events the known events, in order
 * @param dpRank data-parallel rank from the batch, or null when the engine left it out
 * @param unknownEvents events of an unknown type that were skipped
 */
public record EventBatch(double ts, List<KvEvent> events, Integer dpRank, int unknownEvents) {

  public EventBatch {
    events = List.copyOf(events);
  }

  /** The batch's rank, or 0 when absent. */
  public int rank() {
    return dpRank == null ? 0 : dpRank;
  }
}
