package io.infera.router.tokenize;

/** A tokenizer that cannot be found or loaded; the message names the path or id and the fix. */
public final class TokenizerException extends Exception {
  public TokenizerException(String message) {
    super(message, null, false, false);
  }

  public TokenizerException(String message, Throwable cause) {
    super(message, cause, false, false);
  }
}
