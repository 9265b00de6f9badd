package io.infera.router.parity;

/** A worker's render parity as far as the router knows it. */
public enum ParityStatus {
  /** Not probed yet (just discovered, or the router cannot render the set yet). */
  PENDING,
  /** Every probe case tokenized to the same ids: the router's own tokens are used. */
  MATCH,
  /** A case differs: the worker gets engine tokenization (or estimates) instead. */
  DIVERGED,
  /**
   * The worker has no {@code /tokenize} with messages (404, 405, or 4xx to the chat form): parity
   * unknown; the router's own tokens are used, as before probing existed.
   */
  UNSUPPORTED,
  /** The last probe failed (timeout, refused, oversize or unreadable answer, 5xx); retried. */
  FAILED,
  /** Probing is off ({@code tokenizer.parity.enabled: false}) or pointless (engine mode). */
  DISABLED;

  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
