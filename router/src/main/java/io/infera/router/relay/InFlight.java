package io.infera.router.relay;

import io.infera.router.relay.StreamClient.Ack;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One published batch of the publisher's window, waiting for its acknowledgement.
 *
 * @param sentNanos when it was published (publisher clock)
 * @param generation the client's reconnect count then: a reconnect since leaves its fate unknown
 */
record InFlight(RelayBatch batch, CompletableFuture<Ack> future, long sentNanos, long generation) {

  /** The acknowledgement, or null while pending or when the publish failed. */
  Ack ack() {
    try {
      return future.getNow(null);
    } catch (CompletionException | CancellationException e) {
      return null;
    }
  }

  /** Why the (completed) publish failed. */
  Throwable failure() {
    try {
      future.getNow(null);
      return new IllegalStateException("no failure");
    } catch (CompletionException e) {
      return e.getCause() == null ? e : e.getCause();
    } catch (CancellationException e) {
      return e;
    }
  }

  /**
   * Waits up to {@code nanos} for the outcome (looked at afterwards by the caller).
   *
   * @return false when interrupted (the interrupt flag is set again)
   */
  boolean await(long nanos) {
    try {
      future.get(nanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException | TimeoutException | CancellationException e) {
      // The outcome is read by the caller.
    }
    return true;
  }
}
