package io.infera.router.policy;

/**
 * A request's input tokens as decode input demand counts them.
 *
 * @param tokens the prompt's tokens: the router's own count, the engine's, or an estimate; >= 0
 * @param n the sequences the request asks for ({@code n}; 1 when absent or invalid); >= 1
 * @param counted whether a tokenizer (the router's or the engine's) counted {@code tokens}; false
 *     for an estimate from the request's text
 * @param multimodal whether the request carries images or audio, whose placeholders the engine
 *     expands to a count the router cannot know
 */
public record InputTokens(long tokens, int n, boolean counted, boolean multimodal) {

  /**
   * The most tokens one request is counted for (about 10^12): a huge {@code n} saturates here so
   * that sums of demands never overflow.
   */
  public static final long MAX_DEMAND = 1L << 40;

  /** A request with nothing to count (no prompt was found), exact and single. */
  public static final InputTokens NONE = new InputTokens(0, 1, true, false);

  public InputTokens {
    if (tokens < 0 || n < 1) {
      throw new IllegalArgumentException("tokens must be >= 0 and n >= 1: " + tokens + ", " + n);
    }
  }

  /** Whether {@code tokens} is exact: counted, and no media the engine expands. */
  public boolean exact() {
    return counted && !multimodal;
  }

  /** The same request counted by a tokenizer: {@code count} tokens. */
  public InputTokens counted(long count) {
    return new InputTokens(count, n, true, multimodal);
  }

  /**
   * What the request adds to its decode target: {@code tokens × n}, at most {@link #MAX_DEMAND}.
   */
  public long demand() {
    if (tokens == 0) {
      return 0;
    }
    return tokens > MAX_DEMAND / n ? MAX_DEMAND : Math.min(MAX_DEMAND, tokens * n);
  }

  /** {@code exact} or {@code estimated}, the decision metric's {@code input} label. */
  public String label() {
    return exact() ? "exact" : "estimated";
  }
}
