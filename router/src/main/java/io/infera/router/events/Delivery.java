package io.infera.router.events;

import io.infera.router.kv.ViewSnapshot;
import io.infera.router.kv.WorkerId;
import java.util.List;
import java.util.Objects;

/**
 * What a transport hands to an {@link EventSink}: one engine message or one snapshot of one source.
 * Message frames are ZMQ-shaped, {@code [topic, seq, payload]} or {@code [topic, payload]}, and
 * handed over undecoded.
 */
public sealed interface Delivery
    permits Delivery.Live, Delivery.Replayed, Delivery.Streamed, Delivery.Snapshot {

  /** The rank of a message whose transport does not know its source's rank (inproc). */
  int UNKNOWN_RANK = -1;

  /** The worker the delivery came from. */
  WorkerId worker();

  /**
   * A message as an engine published it.
   *
   * @param socketRank the data-parallel rank of the socket it came from, which names its source
   *     whatever rank the batch carries; {@link #UNKNOWN_RANK} when the transport has no socket per
   *     rank (the batch's own rank is used then)
   */
  record Live(WorkerId worker, int socketRank, List<byte[]> frames) implements Delivery {
    public Live {
      Objects.requireNonNull(worker, "worker");
      checkRank(socketRank);
      frames = List.copyOf(frames);
    }

    /** A message whose source rank only the batch knows. */
    public Live(WorkerId worker, List<byte[]> frames) {
      this(worker, UNKNOWN_RANK, frames);
    }
  }

  /**
   * A message obtained again from the engine's replay socket after a gap (same frame shapes, same
   * meaning of {@code socketRank} as {@link Live}). Replayed messages may overlap what was already
   * applied; duplicates are skipped by sequence number.
   */
  record Replayed(WorkerId worker, int socketRank, List<byte[]> frames) implements Delivery {
    public Replayed {
      Objects.requireNonNull(worker, "worker");
      checkRank(socketRank);
      frames = List.copyOf(frames);
    }
  }

  /**
   * A message from a stream that numbers every message (JetStream).
   *
   * @param rank the source's data-parallel rank (from the subject), {@code >= 0}: it names the
   *     source even when the batch carries another rank or none
   * @param streamSeq the message's stream sequence ({@code > 0}), for logs
   */
  record Streamed(WorkerId worker, int rank, long streamSeq, List<byte[]> frames)
      implements Delivery {
    public Streamed {
      Objects.requireNonNull(worker, "worker");
      if (rank < 0) {
        throw new IllegalArgumentException("rank must be >= 0, got " + rank);
      }
      frames = List.copyOf(frames);
    }
  }

  /**
   * Replaces the view of source ({@code worker}, {@code rank}) by {@code snapshot}, in order with
   * the messages delivered before and after. Sinks that keep no view ignore it.
   */
  record Snapshot(WorkerId worker, int rank, ViewSnapshot snapshot) implements Delivery {
    public Snapshot {
      Objects.requireNonNull(worker, "worker");
      Objects.requireNonNull(snapshot, "snapshot");
      if (rank < 0) {
        throw new IllegalArgumentException("rank must be >= 0, got " + rank);
      }
    }
  }

  private static void checkRank(int rank) {
    if (rank < UNKNOWN_RANK) {
      throw new IllegalArgumentException("socket rank must be >= 0 or UNKNOWN_RANK, got " + rank);
    }
  }
}
