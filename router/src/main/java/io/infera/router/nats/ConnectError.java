package io.infera.router.nats;

import java.io.IOException;

/**
 * Why a NATS connect failed. jnats throws a bare "Unable to connect to NATS servers" and hands the
 * reason (a TLS handshake or certificate error, a refused connection) to its error listener only;
 * the listener records it here and the connect's caller rethrows with it, so logs and the router's
 * outage condition name the cause. Any thread.
 */
public final class ConnectError {

  private volatile Throwable last;

  /** The error listener saw {@code e}. */
  public void saw(Throwable e) {
    last = e;
  }

  /**
   * {@code e} with the reason last seen in its message (once: the reason is then forgotten), or
   * {@code e} itself when none was seen or it already says it.
   */
  public IOException explain(IOException e) {
    Throwable l = last;
    last = null;
    if (l == null) {
      return e;
    }
    Throwable root = l;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String reason = root.toString();
    String msg = String.valueOf(e.getMessage());
    return msg.contains(reason) ? e : new IOException(msg + " (" + reason + ")", e);
  }
}
