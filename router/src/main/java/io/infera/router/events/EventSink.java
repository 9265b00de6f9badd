package io.infera.router.events;

import java.util.concurrent.CompletableFuture;

/** Where transports deliver what engines publish. Thread-safe; never blocks for long. */
public interface EventSink {

  /**
   * Takes one delivery. Deliveries of one source arrive in the order the transport received them; a
   * sink with a bounded queue may hold the caller until there is room.
   */
  void accept(Delivery delivery);

  /**
   * Completes once everything accepted before this call has been applied (immediately for sinks
   * that apply synchronously). Never blocks.
   */
  default CompletableFuture<Void> flush() {
    return CompletableFuture.completedFuture(null);
  }
}
