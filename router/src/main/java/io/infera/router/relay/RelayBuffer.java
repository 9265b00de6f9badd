package io.infera.router.relay;

import java.util.Collection;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The batches received and not yet taken by the publisher, bounded in count and in payload bytes:
 * an offer that would pass either bound is refused (one batch alone always fits an empty buffer).
 * The publisher folds long before these hard bounds ({@link RelayOptions#bufferBatches()}, {@link
 * RelayOptions#bufferBytes()}), so a refusal only holds the ZMQ poller while the publisher stalls.
 * One producer (the ZMQ poller), one consumer (the publisher); sizes are read by any thread.
 */
final class RelayBuffer {

  private static final long OFFER_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final LinkedBlockingQueue<RelayBatch> queue;
  private final long maxBytes;
  private final AtomicLong bytes = new AtomicLong();

  /**
   * @param maxBatches batches held at most
   * @param maxBytes payload bytes held at most
   */
  RelayBuffer(int maxBatches, long maxBytes) {
    if (maxBatches < 1 || maxBytes < 1) {
      throw new IllegalArgumentException("bounds must be >= 1");
    }
    this.queue = new LinkedBlockingQueue<>(maxBatches);
    this.maxBytes = maxBytes;
  }

  /** Queues {@code b} unless a bound is reached. */
  boolean offer(RelayBatch b) {
    long len = b.payload().length;
    long held = bytes.get();
    if (held > 0 && held + len > maxBytes) {
      return false;
    }
    // Counted first, so that a concurrent poll never takes the count below zero.
    bytes.addAndGet(len);
    if (queue.offer(b)) {
      return true;
    }
    bytes.addAndGet(-len);
    return false;
  }

  /** {@link #offer(RelayBatch)}, retried until it succeeds or {@code timeout} passed. */
  boolean offer(RelayBatch b, long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (!offer(b)) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      LockSupport.parkNanos(OFFER_PARK_NANOS);
    }
    return true;
  }

  /** Queues every batch, ignoring the bounds (tests feed the publisher directly). */
  void addAll(Collection<RelayBatch> batches) {
    for (RelayBatch b : batches) {
      bytes.addAndGet(b.payload().length);
      queue.add(b);
    }
  }

  RelayBatch poll() {
    return taken(queue.poll());
  }

  RelayBatch poll(long timeout, TimeUnit unit) throws InterruptedException {
    return taken(queue.poll(timeout, unit));
  }

  private RelayBatch taken(RelayBatch b) {
    if (b != null) {
      bytes.addAndGet(-b.payload().length);
    }
    return b;
  }

  boolean isEmpty() {
    return queue.isEmpty();
  }

  int size() {
    return queue.size();
  }

  /** Payload bytes queued now. */
  long bytes() {
    return bytes.get();
  }
}
