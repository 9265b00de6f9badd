package io.infera.router.engineload;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Collects a response body in memory up to {@code maxBytes}; one byte more fails the exchange with
 * {@link TooLarge} and cancels the rest, so a hostile engine cannot make the router buffer without
 * bound.
 */
final class CappedBody implements HttpResponse.BodySubscriber<byte[]> {

  /** The body passed its bound. */
  static final class TooLarge extends IOException {
    TooLarge(long max) {
      super("body larger than " + max + " bytes");
    }
  }

  private final CompletableFuture<byte[]> result = new CompletableFuture<>();
  private final long maxBytes;
  private final byte[] refused;
  private final ByteArrayOutputStream buf = new ByteArrayOutputStream();
  private Flow.Subscription subscription;

  CappedBody(long maxBytes) {
    this.maxBytes = maxBytes;
    this.refused = null;
  }

  private CappedBody(byte[] refused) {
    this.maxBytes = -1;
    this.refused = refused;
  }

  /**
   * Reads nothing: cancels at once and completes with {@code value} (an error page, or a body whose
   * Content-Length is already over the cap, need not be read).
   */
  static CappedBody refusing(byte[] value) {
    return new CappedBody(value);
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    if (maxBytes < 0) {
      s.cancel();
      result.complete(refused);
      return;
    }
    s.request(Long.MAX_VALUE);
  }

  @Override
  public void onNext(List<ByteBuffer> items) {
    if (result.isDone()) {
      return;
    }
    for (ByteBuffer b : items) {
      if (buf.size() + (long) b.remaining() > maxBytes) {
        subscription.cancel();
        result.completeExceptionally(new TooLarge(maxBytes));
        return;
      }
      byte[] a = new byte[b.remaining()];
      b.get(a);
      buf.write(a, 0, a.length);
    }
  }

  @Override
  public void onError(Throwable t) {
    result.completeExceptionally(t);
  }

  @Override
  public void onComplete() {
    if (!result.isDone()) {
      result.complete(buf.toByteArray());
    }
  }

  @Override
  public CompletionStage<byte[]> getBody() {
    return result;
  }
}
