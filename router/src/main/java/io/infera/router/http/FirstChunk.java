package io.infera.router.http;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.ReadStream;

/**
 * A worker's answer as a stream that runs {@code onFirst} when its first non-empty chunk arrives
 * (once), then passes every chunk on unchanged. Backpressure and end go straight to the source.
 * Event-loop only.
 */
final class FirstChunk implements ReadStream<Buffer> {

  private final ReadStream<Buffer> source;
  private final Runnable onFirst;
  private boolean seen;

  FirstChunk(ReadStream<Buffer> source, Runnable onFirst) {
    this.source = source;
    this.onFirst = onFirst;
  }

  @Override
  public ReadStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
    source.exceptionHandler(handler);
    return this;
  }

  @Override
  public ReadStream<Buffer> handler(Handler<Buffer> handler) {
    if (handler == null) {
      source.handler(null);
      return this;
    }
    source.handler(
        buf -> {
          if (!seen && buf.length() > 0) {
            seen = true;
            onFirst.run();
          }
          handler.handle(buf);
        });
    return this;
  }

  @Override
  public ReadStream<Buffer> pause() {
    source.pause();
    return this;
  }

  @Override
  public ReadStream<Buffer> resume() {
    source.resume();
    return this;
  }

  @Override
  public ReadStream<Buffer> fetch(long amount) {
    source.fetch(amount);
    return this;
  }

  @Override
  public ReadStream<Buffer> endHandler(Handler<Void> endHandler) {
    source.endHandler(endHandler);
    return this;
  }
}
