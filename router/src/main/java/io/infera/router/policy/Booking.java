package io.infera.router.policy;

import io.infera.router.kv.WorkerId;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The load one request put on its worker. The first token ends its prefill charge ({@link
 * #firstToken}); every terminal path of the request (response end, client disconnect, failure)
 * closes it, and only the first close releases. Thread-safe.
 */
public final class Booking implements AutoCloseable {

  private final WorkerId worker;
  private final Runnable firstToken;
  private final Runnable release;
  private final AtomicBoolean open = new AtomicBoolean(true);
  private final AtomicBoolean prefilled = new AtomicBoolean();

  Booking(WorkerId worker, Runnable firstToken, Runnable release) {
    this.worker = worker;
    this.firstToken = firstToken;
    this.release = release;
  }

  public WorkerId worker() {
    return worker;
  }

  public boolean isOpen() {
    return open.get();
  }

  /**
   * The worker sent the request's first token: its prefill (and that of every request booked before
   * it on the worker) is done. Only the first call while open counts; returns true for it.
   */
  public boolean firstToken() {
    if (open.get() && prefilled.compareAndSet(false, true)) {
      firstToken.run();
      return true;
    }
    return false;
  }

  /** Releases the load; returns true only for the call that did. */
  public boolean release() {
    if (open.compareAndSet(true, false)) {
      release.run();
      return true;
    }
    return false;
  }

  @Override
  public void close() {
    release();
  }
}
