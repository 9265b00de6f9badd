package io.infera.router.discovery;

import java.util.List;

/**
 * A source of worker snapshots. Implementations call the listener with the full current list after
 * every change (from their own thread); the first call marks the initial sync.
 */
public interface Discovery extends AutoCloseable {

  /** Receives full snapshots; must not block. */
  @FunctionalInterface
  interface Listener {
    void onWorkers(List<WorkerInfo> workers);
  }

  /** Starts watching; snapshots flow to {@code listener} until {@link #close()}. */
  void start(Listener listener);

  /** True once the first complete snapshot was delivered. */
  boolean synced();

  /** Backend name for logs and status ({@code static}, {@code kubernetes}). */
  String name();

  @Override
  void close();
}
