package io.infera.jinja;

/**
 * A template that cannot be parsed or rendered. The kinds mirror Jinja2's exception types so a
 * caller can tell a template bug from a bad conversation.
 */
public sealed class TemplateException extends RuntimeException permits TemplateBudgetException {

  /** Jinja2's exception families. */
  public enum Kind {
    /** The template does not parse ({@code TemplateSyntaxError}). */
    SYNTAX,
    /** The template called {@code raise_exception(message)} ({@code TemplateError}). */
    RAISED,
    /** An undefined value was used where a value is needed ({@code UndefinedError}). */
    UNDEFINED,
    /** A forbidden operation in the immutable sandbox ({@code SecurityError}). */
    SECURITY,
    /** A Python type or value error during rendering ({@code TypeError}, {@code ValueError}, …). */
    RUNTIME,
    /** The render would exceed its {@link RenderBudget} ({@link TemplateBudgetException}). */
    BUDGET
  }

  private final Kind kind;
  private final int line;

  public TemplateException(Kind kind, String message, int line) {
    super(message, null, false, false);
    this.kind = kind;
    this.line = line;
  }

  public TemplateException(Kind kind, String message) {
    this(kind, message, 0);
  }

  public Kind kind() {
    return kind;
  }

  /** Template line the error refers to, or 0 when unknown. */
  public int line() {
    return line;
  }

  /** The message with its kind and line, for users. */
  public String describe() {
    String where = line > 0 ? " (template line " + line + ")" : "";
    return switch (kind) {
      case RAISED -> "chat template raised: " + getMessage();
      case SYNTAX -> "chat template syntax error" + where + ": " + getMessage();
      case UNDEFINED -> "chat template used an undefined value" + where + ": " + getMessage();
      case SECURITY -> "chat template broke the sandbox" + where + ": " + getMessage();
      case RUNTIME -> "chat template failed" + where + ": " + getMessage();
      case BUDGET -> "chat template stopped: " + getMessage();
    };
  }

  static TemplateException runtime(String message) {
    return new TemplateException(Kind.RUNTIME, message);
  }

  static TemplateException undefined(String message) {
    return new TemplateException(Kind.UNDEFINED, message);
  }

  static TemplateException security(String message) {
    return new TemplateException(Kind.SECURITY, message);
  }
}
