package io.infera.router.http;

import io.infera.router.accuracy.CachedTokens;
import io.infera.router.accuracy.UsageParser;
import io.vertx.core.buffer.Buffer;
import java.util.Locale;

/**
 * Watches an engine's answer on its way to the client for the cached tokens it reports, within a
 * fixed budget: the last {@link #SSE_TAIL_BYTES} of an SSE stream (the usage chunk comes last), or
 * the first {@link #MAX_JSON_BYTES} of a JSON body (a longer one is {@code too_large}). The bytes
 * the client gets are the same buffers, untouched. Confined to the request's event loop.
 */
final class UsageTap implements ObservedStream.Observer {

  /** Bytes of an SSE stream's end kept for its usage chunk (a usage chunk is well under 1 KiB). */
  static final int SSE_TAIL_BYTES = 8 << 10;

  /** Largest JSON answer parsed for its usage. */
  static final int MAX_JSON_BYTES = 256 << 10;

  private final boolean sse;
  // SSE: the stream's last bytes, linear until full, then a ring whose oldest byte is at pos.
  // JSON: the answer so far. Both grow by doubling up to their budget.
  private byte[] buf = new byte[1024];
  private int len;
  private int pos;
  private boolean cut;

  private UsageTap(boolean sse) {
    this.sse = sse;
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

  @Override
  public void chunk(Buffer b) {
    int n = b.length();
    if (sse) {
      tail(b, n);
      return;
    }
    if (cut) {
      return;
    }
    if ((long) len + n > MAX_JSON_BYTES) {
      cut = true;
      buf = null;
      return;
    }
    grow(len + n, MAX_JSON_BYTES);
    b.getBytes(0, n, buf, len);
    len += n;
  }

  private void tail(Buffer b, int n) {
    int cap = SSE_TAIL_BYTES;
    if (n >= cap) { // this buffer alone fills the tail
      grow(cap, cap);
      b.getBytes(n - cap, n, buf, 0);
      len = cap;
      pos = 0;
      cut = true;
      return;
    }
    if (len + n <= cap) { // still linear
      grow(len + n, cap);
      b.getBytes(0, n, buf, len);
      len += n;
      return;
    }
    if (len < cap) { // becomes a ring: fill up, then wrap
      grow(cap, cap);
      int first = cap - len;
      b.getBytes(0, first, buf, len);
      len = cap;
      pos = 0;
      cut = true;
      writeRing(b, first, n);
      return;
    }
    writeRing(b, 0, n);
  }

  /** Overwrites the oldest bytes with {@code b[from, to)}; the ring is full. */
  private void writeRing(Buffer b, int from, int to) {
    int cap = buf.length;
    while (from < to) {
      int k = Math.min(to - from, cap - pos);
      b.getBytes(from, from + k, buf, pos);
      from += k;
      pos = (pos + k) % cap;
    }
  }

  private void grow(int need, int max) {
    if (need > buf.length) {
      buf = java.util.Arrays.copyOf(buf, Math.min(max, Math.max(need, buf.length * 2)));
    }
  }

  /** What the whole answer said; call once it has ended. */
  CachedTokens result() {
    if (!sse) {
      return cut ? CachedTokens.TOO_LARGE : UsageParser.json(buf, 0, len);
    }
    if (pos == 0) {
      return UsageParser.sseTail(buf, len, cut);
    }
    byte[] linear = new byte[len];
    System.arraycopy(buf, pos, linear, 0, len - pos);
    System.arraycopy(buf, 0, linear, len - pos, pos);
    return UsageParser.sseTail(linear, len, cut);
  }
}
