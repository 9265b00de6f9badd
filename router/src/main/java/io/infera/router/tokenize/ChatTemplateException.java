package io.infera.router.tokenize;

import io.infera.jinja.TemplateException;

/**
 * A chat template that does not parse or fails to render (a user-facing, non-retryable error): the
 * tokenize API's face of the Jinja engine's {@link TemplateException}, which is its cause, so
 * callers outside {@code tokenize} never depend on the engine.
 */
public final class ChatTemplateException extends RuntimeException {

  private final String description;

  ChatTemplateException(TemplateException cause) {
    super(cause.getMessage(), cause, false, false);
    this.description = cause.describe();
  }

  /** The message with its kind and template line, for users (the engine's wording). */
  public String describe() {
    return description;
  }
}
