package io.infera.router.hub;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Writes a response body to a file, failing (and cancelling the exchange) as soon as it passes
 * {@code maxBytes}, so a hostile or broken server cannot fill the disk.
 */
final class BoundedFileSubscriber implements HttpResponse.BodySubscriber<Long> {

  /** The body passed its bound; {@code seen} is the byte count at which it was stopped. */
  static final class TooLarge extends IOException {
    final long seen;

    TooLarge(long seen) {
      super("more than the limit", null);
      this.seen = seen;
    }
  }

  /** Takes no body at all: cancels at once (an error page or redirect need not be read). */
  static final class Discard implements HttpResponse.BodySubscriber<Long> {
    private final CompletableFuture<Long> done = new CompletableFuture<>();

    @Override
    public void onSubscribe(Flow.Subscription s) {
      s.cancel();
      done.complete(0L);
    }

    @Override
    public void onNext(List<ByteBuffer> item) {}

    @Override
    public void onError(Throwable t) {
      done.complete(0L);
    }

    @Override
    public void onComplete() {
      done.complete(0L);
    }

    @Override
    public CompletionStage<Long> getBody() {
      return done;
    }
  }

  private final CompletableFuture<Long> result = new CompletableFuture<>();
  private final Path file;
  private final long maxBytes;
  private FileChannel out;
  private Flow.Subscription subscription;
  private long written;

  /**
   * @param maxBytes the bound; negative refuses the body unread
   */
  BoundedFileSubscriber(Path file, long maxBytes) {
    this.file = file;
    this.maxBytes = maxBytes;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    if (maxBytes < 0) {
      // Content-Length already says too much: refuse before reading.
      fail(new TooLarge(0));
      return;
    }
    try {
      out =
          FileChannel.open(
              file,
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.WRITE);
    } catch (IOException e) {
      fail(e);
      return;
    }
    s.request(1);
  }

  @Override
  public void onNext(List<ByteBuffer> items) {
    if (result.isDone()) {
      return;
    }
    try {
      for (ByteBuffer b : items) {
        written += b.remaining();
        if (written > maxBytes) {
          fail(new TooLarge(written));
          return;
        }
        while (b.hasRemaining()) {
          out.write(b);
        }
      }
    } catch (IOException e) {
      fail(e);
      return;
    }
    subscription.request(1);
  }

  @Override
  public void onError(Throwable t) {
    close();
    result.completeExceptionally(t);
  }

  @Override
  public void onComplete() {
    try {
      if (out != null) {
        out.force(true);
      }
    } catch (IOException e) {
      fail(e);
      return;
    }
    close();
    result.complete(written);
  }

  @Override
  public CompletionStage<Long> getBody() {
    return result;
  }

  private void fail(IOException e) {
    if (subscription != null) {
      subscription.cancel();
    }
    close();
    result.completeExceptionally(e);
  }

  private void close() {
    if (out != null) {
      try {
        out.close();
      } catch (IOException ignored) {
        // the failure (or the completed body) is what the caller sees
      }
    }
  }
}
