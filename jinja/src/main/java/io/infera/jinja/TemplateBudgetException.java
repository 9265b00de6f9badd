package io.infera.jinja;

/**
 * A render stopped because it would exceed its {@link RenderBudget}: thrown before the allocation
 * or the step that would break the limit, so a hostile template never gets the memory it asks for.
 */
public final class TemplateBudgetException extends TemplateException {

  /** Which limit of the budget a render hit. */
  public enum Limit {
    /** Characters of rendered output (including macro, call and set-block bodies). */
    OUTPUT("output characters"),
    /** Characters of one string, or items of one list, tuple or dict. */
    VALUE("characters or items in one value"),
    /** Characters and items allocated over the whole render (live or garbage). */
    ALLOCATION("characters and items allocated"),
    /** Work steps: evaluated nodes, loop iterations, comparisons. */
    STEPS("work steps"),
    /** Nested macro, call-block and recursive-loop calls, and template nesting. */
    DEPTH("call depth"),
    /** Bits of one integer. */
    INTEGER("bits in one integer");

    private final String unit;

    Limit(String unit) {
      this.unit = unit;
    }

    /** What the limit counts, for messages ("output characters"). */
    public String unit() {
      return unit;
    }
  }

  private final Limit limit;
  private final long allowed;

  TemplateBudgetException(Limit limit, long allowed) {
    super(Kind.BUDGET, "template exceeds its budget of " + allowed + " " + limit.unit());
    this.limit = limit;
    this.allowed = allowed;
  }

  public Limit limit() {
    return limit;
  }

  /** The limit in force for this render (after scaling by the input's size). */
  public long allowed() {
    return allowed;
  }
}
