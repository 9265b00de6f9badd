package io.infera.router.kv;

import java.util.List;
import java.util.function.ObjIntConsumer;

/**
 * One decoded batch payload: what an engine publishes per ZMQ message.
 *
 * @param ts engine timestamp, seconds since the epoch
 * @param events the events that decoded, in order
 * @param dpRank data-parallel rank from the batch, or null when the engine left it out
 * @param skipped the events the decoder left out of {@code events}, by reason
 */
public record EventBatch(double ts, List<KvEvent> events, Integer dpRank, Skipped skipped) {

  public EventBatch {
    events = List.copyOf(events);
    skipped = skipped == null ? Skipped.NONE : skipped;
  }

  /** A batch whose only skipped events are {@code unknownEvents} of an unknown type. */
  public EventBatch(double ts, List<KvEvent> events, Integer dpRank, int unknownEvents) {
    this(ts, events, dpRank, new Skipped(unknownEvents, 0, 0, null));
  }

  /** The batch's rank, or 0 when absent. */
  public int rank() {
    return dpRank == null ? 0 : dpRank;
  }

  /** Events of an unknown type that were skipped. */
  public int unknownEvents() {
    return skipped.unknownType();
  }

  /** The same batch credited to {@code rank} (the source it arrived from wins over the payload). */
  public EventBatch withRank(Integer rank) {
    return new EventBatch(ts, events, rank, skipped);
  }

  /**
   * Events the decoder skipped, each dropping only itself (docs/contracts.md, "Events").
   *
   * @param unknownType events of a type this router does not know
   * @param offloadPlaceholder offload-tier {@code BlockStored} placeholders without tokens
   * @param malformed events that did not decode (the rest of the batch did)
   * @param firstError the first malformed event's error, or null when none was malformed
   */
  public record Skipped(int unknownType, int offloadPlaceholder, int malformed, String firstError) {

    /** Nothing skipped. */
    public static final Skipped NONE = new Skipped(0, 0, 0, null);

    public int total() {
      return unknownType + offloadPlaceholder + malformed;
    }

    /** Calls {@code sink} with each reason whose count is not zero. */
    public void forEach(ObjIntConsumer<DropReason> sink) {
      if (unknownType > 0) {
        sink.accept(DropReason.UNKNOWN_EVENT_TYPE, unknownType);
      }
      if (offloadPlaceholder > 0) {
        sink.accept(DropReason.OFFLOAD_PLACEHOLDER, offloadPlaceholder);
      }
      if (malformed > 0) {
        sink.accept(DropReason.MALFORMED_EVENT, malformed);
      }
    }
  }
}
