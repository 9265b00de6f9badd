package io.infera.router.tokenize;

import io.infera.jinja.TemplateBudgetException;
import io.infera.jinja.TemplateException;

/**
 * A chat template that does not parse or fails to render (a user-facing, non-retryable error): the
 * tokenize API's face of the Jinja engine's {@link TemplateException}, which is its cause, so
 * callers outside {@code tokenize} never depend on the engine.
 */
public final class ChatTemplateException extends RuntimeException {

  private final String description;
  private final String budgetKey;

  ChatTemplateException(TemplateException cause) {
    super(cause.getMessage(), cause, false, false);
    this.description = cause.describe();
    this.budgetKey = cause instanceof TemplateBudgetException b ? configKey(b.limit()) : null;
  }

  /** True when the render stopped at its {@link TemplateBudget}, not at a template bug. */
  public boolean overBudget() {
    return budgetKey != null;
  }

  /** The config key that sets the limit the render hit, or null when it is not over budget. */
  public String budgetKey() {
    return budgetKey;
  }

  private static String configKey(TemplateBudgetException.Limit limit) {
    return switch (limit) {
      case OUTPUT, VALUE, ALLOCATION ->
          "limits.templateOutputChars and limits.templateOutputPerInputChar";
      case STEPS -> "limits.templateSteps and limits.templateStepsPerInputChar";
      case DEPTH -> "limits.templateMaxDepth";
      case INTEGER -> "limits.templateOutputChars (integers: 65,536 bits, fixed)";
    };
  }

  /** The message with its kind and template line, for users (the engine's wording). */
  public String describe() {
    return description;
  }
}
