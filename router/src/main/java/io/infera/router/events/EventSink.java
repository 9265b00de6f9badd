package io.infera.router.events;

import io.infera.router.kv.ViewSnapshot;
import io.infera.router.kv.WorkerId;
import java.util.List;
import java.util.concurrent.CompletableFuture;

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

  /**
   * A message from a stream that numbers every message (JetStream). Unlike {@link #accept(WorkerId,
   * int, List)}, {@code rank} is authoritative: it names the source even when the batch carries
   * another rank or none.
   *
   * @param rank the source's data-parallel rank (from the subject), {@code >= 0}
   * @param streamSeq the message's stream sequence ({@code > 0}), for logs
   */
  default void acceptStreamed(WorkerId worker, int rank, long streamSeq, List<byte[]> frames) {
    accept(worker, rank, frames);
  }

  /**
   * Replaces the view of source ({@code worker}, {@code rank}) by {@code snapshot}, in order with
   * the messages accepted before and after. Sinks that keep no view ignore it.
   */
  default void acceptSnapshot(WorkerId worker, int rank, ViewSnapshot snapshot) {}

  /**
   * Completes once everything accepted before this call has been applied (immediately for sinks
   * that apply synchronously). Never blocks.
   */
  default CompletableFuture<Void> flush() {
    return CompletableFuture.completedFuture(null);
  }
}
