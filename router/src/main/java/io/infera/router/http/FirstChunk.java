package io.infera.router.http;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.ReadStream;

/**
 * A worker's answer as a stream that runs one action at its first non-empty body chunk, or at its
 * end when it has none: the moment the worker's first token arrived (engines send nothing of a
 * streamed answer before prefill is done, and a whole answer ends after decode). Everything else
 * passes through unchanged. Event-loop only, as the stream it wraps.
 */
final class FirstChunk implements ReadStream<Buffer> {

  private final ReadStream<Buffer> in;
  private Runnable first;

  private FirstChunk(ReadStream<Buffer> in, Runnable first) {
    this.in = in;
    this.first = first;
  }

  /** {@code in}, running {@code first} once at its first chunk or its end. */
  static ReadStream<Buffer> watch(ReadStream<Buffer> in, Runnable first) {
    return new FirstChunk(in, first);
  }

  private void fire() {
    Runnable f = first;
    if (f != null) {
      first = null;
      f.run();
    }
  }

  @Override
  public ReadStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
    in.exceptionHandler(handler);
    return this;
  }

  @Override
  public ReadStream<Buffer> handler(Handler<Buffer> handler) {
    if (handler == null) {
      in.handler(null);
    } else {
      in.handler(
          buf -> {
            if (buf.length() > 0) {
              fire();
            }
            handler.handle(buf);
          });
    }
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
    if (handler == null) {
      in.endHandler(null);
    } else {
      in.endHandler(
          v -> {
            fire();
            handler.handle(v);
          });
    }
    return this;
  }
}
