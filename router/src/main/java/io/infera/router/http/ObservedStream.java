package io.infera.router.http;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.ReadStream;
import java.util.List;

/**
 * A worker's answer on its way to the client, shown to observers: each buffer before the client's
 * handler gets it, and the end before the end handler runs. The buffers pass through untouched and
 * flow control (pause, resume, fetch) goes straight to the answer. Event-loop only, as the stream
 * it wraps.
 */
final class ObservedStream implements ReadStream<Buffer> {

  /** What watches an answer's bytes go by. */
  interface Observer {
    /** One buffer of the answer, in order. */
    void chunk(Buffer b);

    /** The answer has ended (not called when it broke). */
    default void end() {}
  }

  private final ReadStream<Buffer> in;
  private final List<Observer> observers;

  private ObservedStream(ReadStream<Buffer> in, List<Observer> observers) {
    this.in = in;
    this.observers = observers;
  }

  /** {@code in} as seen by {@code observers} (nulls skipped); {@code in} itself when none. */
  static ReadStream<Buffer> of(ReadStream<Buffer> in, Observer... observers) {
    List<Observer> list = java.util.Arrays.stream(observers).filter(o -> o != null).toList();
    return list.isEmpty() ? in : new ObservedStream(in, list);
  }

  @Override
  public ReadStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
    in.exceptionHandler(handler);
    return this;
  }

  @Override
  public ReadStream<Buffer> handler(Handler<Buffer> handler) {
    in.handler(
        handler == null
            ? null
            : b -> {
              for (Observer o : observers) {
                o.chunk(b);
              }
              handler.handle(b);
            });
    return this;
  }

  @Override
  public ReadStream<Buffer> pause() {
    in.pause();
    return this;
  }

  @Override
  public ReadStream<Buffer> resume() {
    in.resume();
    return this;
  }

  @Override
  public ReadStream<Buffer> fetch(long amount) {
    in.fetch(amount);
    return this;
  }

  @Override
  public ReadStream<Buffer> endHandler(Handler<Void> handler) {
    in.endHandler(
        handler == null
            ? null
            : v -> {
              for (Observer o : observers) {
                o.end();
              }
              handler.handle(v);
            });
    return this;
  }
}
