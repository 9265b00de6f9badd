package io.infera.router.events;

import io.infera.router.discovery.WorkerInfo;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;

/**
 * Brings KV events from engines to an {@link EventSink}, and reports on itself: its status and
 * readiness reason ({@link #status()}) and its own meters ({@link #bindTo}).
 */
public interface EventTransport extends MeterBinder, AutoCloseable {

  /** Starts delivering to {@code sink}. Once. */
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

  /** The transport's status now. Any thread; never blocks. */
  TransportStatus status();

  /**
   * Registers the transport's meters ({@code infera.zmq.*}, {@code infera.nats.*}); none by
   * default. Call once, before or after {@link #start}.
   */
  @Override
  default void bindTo(MeterRegistry registry) {}

  @Override
  void close();
}
