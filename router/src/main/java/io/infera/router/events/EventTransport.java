package io.infera.router.events;

import io.infera.router.discovery.WorkerInfo;
import java.util.List;

/** Brings KV events from engines to an {@link EventSink}. */
public interface EventTransport extends AutoCloseable {

  /** Starts delivering to {@code sink}. */
  void start(EventSink sink);

  /**
   * The current workers (full list after every discovery change): subscribe to new ones, stop
   * listening to removed ones. Called from any thread.
   */
  void workersChanged(List<WorkerInfo> workers);

  /**
   * True once every current source is connected (or has delivered something): the router's index is
   * warm enough to report ready.
   */
  boolean warm();

  /** Transport name for logs and status ({@code zmq}, {@code inproc}, {@code nats}). */
  String name();

  @Override
  void close();
}
