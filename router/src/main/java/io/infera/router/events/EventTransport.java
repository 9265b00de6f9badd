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

  /**
   * Why the transport's thread delivers nothing now although it should (it crashed and is
   * restarting, or its loop ended), or null. Checked on every {@code /ready}: never latched.
   */
  default String threadProblem() {
    return null;
  }

  /** Times the transport's thread crashed (each logged at ERROR and restarted). */
  default long crashes() {
    return 0;
  }

  /**
   * The transport cannot read its event source now.
   *
   * @param reason CamelCase, for the router's events condition ({@code NatsUnreachable}, {@code
   *     StreamUnreadable})
   * @param sinceNanos {@link System#nanoTime()} when it began
   * @param message what failed, for people (no credentials)
   */
  record Outage(String reason, long sinceNanos, String message) {}

  /**
   * Why the transport cannot read its event source (unreachable, or every session failing), or
   * null. A router whose index is not loaded yet is ready anyway after {@code
   * events.nats.outageReadyAfterMs} of it and routes by load (docs/contracts.md). Any thread.
   */
  default Outage outage() {
    return null;
  }

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
