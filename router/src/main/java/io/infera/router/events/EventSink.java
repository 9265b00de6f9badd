package io.infera.router.events;

import io.infera.router.kv.WorkerId;
import java.util.List;

/** Where transports deliver what engines publish. Thread-safe; never blocks for long. */
public interface EventSink {

  /**
   * One message as received: {@code [topic, seq, payload]} or {@code [topic, payload]}.
   *
   * @param worker the worker the message came from
   */
  void accept(WorkerId worker, List<byte[]> frames);

  /**
   * A message obtained from the engine's replay socket after a gap (same frame shapes). Replayed
   * batches may overlap what was already applied; duplicates are skipped by sequence number.
   */
  default void acceptReplayed(WorkerId worker, List<byte[]> frames) {
    accept(worker, frames);
  }

  /**
   * {@link #accept(WorkerId, List)} from a transport that knows which data-parallel rank's socket
   * the message came from (the relay publishes per rank).
   */
  default void accept(WorkerId worker, int socketRank, List<byte[]> frames) {
    accept(worker, frames);
  }

  /** {@link #acceptReplayed(WorkerId, List)} with the socket's rank. */
  default void acceptReplayed(WorkerId worker, int socketRank, List<byte[]> frames) {
    acceptReplayed(worker, frames);
  }
}
