package io.infera.router.events.nats;

import io.infera.router.kv.SourceId;
import io.infera.router.kv.WorkerId;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Events of workers discovery does not know (yet), held for the {@code nats} transport until the
 * worker appears: at most {@code maxMessages} messages and {@code maxBytes} payload bytes, each for
 * at most {@code maxAge}; the oldest go first. A worker that appears takes its held events in
 * stream order.
 *
 * <p>One writer: the transport's consumer thread. {@link #size()} and {@link #dropped()} may be
 * read from any thread.
 */
final class NatsHold {

  /** One held stream message. */
  record Held(
      SourceId source,
      String pool,
      long streamSeq,
      long engineSeq,
      byte[] payload,
      long timestampMillis,
      long heldAtNanos) {}

  private final int maxMessages;
  private final long maxBytes;
  private final long maxAgeNanos;
  private final LongSupplier nanoClock;
  private final ArrayDeque<Held> held = new ArrayDeque<>();
  private long bytes;
  // Single writer; volatile for status readers.
  private volatile long dropped;
  private volatile int size;

  NatsHold(int maxMessages, long maxBytes, Duration maxAge, LongSupplier nanoClock) {
    if (maxMessages < 0 || maxBytes < 0) {
      throw new IllegalArgumentException("hold limits must be >= 0");
    }
    this.maxMessages = maxMessages;
    this.maxBytes = maxBytes;
    this.maxAgeNanos = maxAge.toNanos();
    this.nanoClock = nanoClock;
  }

  /**
   * Holds a message; the oldest held ones are dropped (and counted) to stay within the bounds.
   * Messages arrive in stream order.
   */
  void add(
      SourceId source,
      String pool,
      long streamSeq,
      long engineSeq,
      byte[] payload,
      long timestampMillis) {
    long now = nanoClock.getAsLong();
    expire(now);
    if (maxMessages == 0 || payload.length > maxBytes) {
      dropped++;
      return;
    }
    while (held.size() >= maxMessages || bytes + payload.length > maxBytes) {
      removeFirst();
      dropped++;
    }
    held.addLast(new Held(source, pool, streamSeq, engineSeq, payload, timestampMillis, now));
    bytes += payload.length;
    size = held.size();
  }

  /** Removes and returns the held messages of {@code worker}, in stream order. */
  List<Held> take(WorkerId worker) {
    expire(nanoClock.getAsLong());
    List<Held> out = new ArrayList<>();
    for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
      Held h = it.next();
      if (h.source().worker().equals(worker)) {
        it.remove();
        bytes -= h.payload().length;
        out.add(h);
      }
    }
    size = held.size();
    return out;
  }

  /** Drops (and counts) the held messages of {@code worker}: it left discovery. */
  int drop(WorkerId worker) {
    int n = take(worker).size();
    dropped += n;
    return n;
  }

  /** Drops (and counts) messages held longer than the max age. */
  void expire() {
    expire(nanoClock.getAsLong());
  }

  private void expire(long now) {
    while (!held.isEmpty() && now - held.peekFirst().heldAtNanos() > maxAgeNanos) {
      removeFirst();
      dropped++;
    }
  }

  private void removeFirst() {
    Held h = held.removeFirst();
    bytes -= h.payload().length;
    size = held.size();
  }

  int size() {
    return size;
  }

  long bytes() {
    return bytes;
  }

  /** Messages dropped so far: too old, over the bounds, or of a worker that left. */
  long dropped() {
    return dropped;
  }
}
