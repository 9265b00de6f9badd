package io.infera.router.parity;

/** What a diverging worker renders differently, and so which requests the router must not trust. */
public enum Divergence {
  /** Only chats differ (the chat template): completions with a text prompt still match. */
  TEMPLATE,
  /** A plain prompt differs too (another tokenizer): no text request matches. */
  TOKENIZER;

  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
