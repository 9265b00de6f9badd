package io.infera.router.tokenize;

/**
 * A prompt the router refuses to tokenize because it is over the tokenization budget: the request
 * is then routed by load. {@link #reason()} is the {@code reason} tag of {@code
 * infera.tokenize.failures}.
 */
public final class TokenizeBudgetException extends RuntimeException {

  /** The prompt (or rendered chat) has more characters than {@code limits.tokenizeMaxChars}. */
  public static final String TOO_LONG = "too_long";

  /**
   * The prompt has a stretch longer than {@code limits.tokenizeMaxPieceChars} that cannot be cut at
   * a pre-token boundary (one giant word, a long whitespace or CJK run).
   */
  public static final String UNSPLITTABLE = "unsplittable";

  private final String reason;

  public TokenizeBudgetException(String reason, String message) {
    super(message, null, false, false);
    this.reason = reason;
  }

  public String reason() {
    return reason;
  }
}
