package io.infera.router.policy;

import io.infera.router.kv.WorkerId;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The in-flight load one request put on its worker. Every terminal path of the request (response
 * end, client disconnect, failure) closes it; only the first close releases.
 */
public final class Booking implements AutoCloseable {

  private final WorkerId worker;
  private final Runnable release;
  private final AtomicBoolean open = new AtomicBoolean(true);

  Booking(WorkerId worker, Runnable release) {
    this.worker = worker;
    this.release = release;
  }

  public WorkerId worker() {
    return worker;
  }

  public boolean isOpen() {
    return open.get();
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
