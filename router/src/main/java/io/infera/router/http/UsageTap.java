package io.infera.router.http;

import io.infera.router.accuracy.CachedTokens;
import io.infera.router.accuracy.UsageParser;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.ReadStream;
import java.util.Locale;

/**
 * Watches an engine's answer on its way to the client for the cached tokens it reports, within a
 * fixed budget: the last {@link #SSE_TAIL_BYTES} of an SSE stream (the usage chunk comes last), or
 * the first {@link #MAX_JSON_BYTES} of a JSON body (a longer one is {@code too_large}). The bytes
 * the client gets are the same buffers, untouched. Confined to the request's event loop.
 */
final class UsageTap {

  /** Bytes of an SSE stream's end kept for its usage chunk (a usage chunk is well under 1 KiB). */
  static final int SSE_TAIL_BYTES = 8 << 10;

  /** Largest JSON answer parsed for its usage. */
  static final int MAX_JSON_BYTES = 256 << 10;

  private final boolean sse;
  private final byte[] buf;
  private byte[] json = new byte[0];
  private int len;
  private boolean cut;

  private UsageTap(boolean sse) {
    this.sse = sse;
    this.buf = new byte[sse ? SSE_TAIL_BYTES : 0];
  }

  /**
   * A tap for an answer with {@code contentType}, or null for one that carries no usage (an error,
   * or neither JSON nor SSE).
   */
  static UsageTap of(int status, String contentType) {
    if (status != 200 || contentType == null) {
      return null;
    }
    String ct = contentType.toLowerCase(Locale.ROOT);
    if (ct.startsWith("text/event-stream")) {
      return new UsageTap(true);
    }
    if (ct.startsWith("application/json")) {
      return new UsageTap(false);
    }
    return null;
  }

  /** One buffer of the answer, in order. */
  void accept(Buffer b) {
    int n = b.length();
    if (sse) {
      if (n >= buf.length) {
        b.getBytes(n - buf.length, n, buf, 0);
        len = buf.length;
        cut = true;
        return;
      }
      if (len + n > buf.length) {
        int keep = buf.length - n;
        System.arraycopy(buf, len - keep, buf, 0, keep);
        len = keep;
        cut = true;
      }
      b.getBytes(0, n, buf, len);
      len += n;
      return;
    }
    if (cut) {
      return;
    }
    if ((long) len + n > MAX_JSON_BYTES) {
      cut = true;
      json = null;
      return;
    }
    if (len + n > json.length) {
      json = java.util.Arrays.copyOf(json, Math.min(MAX_JSON_BYTES, Math.max(len + n, len * 2)));
    }
    b.getBytes(0, n, json, len);
    len += n;
  }

  /** What the whole answer said; call once it has ended. */
  CachedTokens result() {
    if (sse) {
      return UsageParser.sseTail(buf, len, cut);
    }
    return cut ? CachedTokens.TOO_LARGE : UsageParser.json(json, 0, len);
  }

  /** {@code in}, with every buffer shown to this tap before its handler gets it. */
  ReadStream<Buffer> watch(ReadStream<Buffer> in) {
    return new Watched(in, this);
  }

  /** A read stream that shows its buffers to a tap on the way. */
  private record Watched(ReadStream<Buffer> in, UsageTap tap) implements ReadStream<Buffer> {

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
                tap.accept(b);
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
    public ReadStream<Buffer> endHandler(Handler<Void> endHandler) {
      in.endHandler(endHandler);
      return this;
    }
  }
}
