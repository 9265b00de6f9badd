package io.infera.router.tokenize;

import io.infera.jinja.RenderBudget;

/**
 * The budget of one chat-template render (config {@code limits.template*}): a fixed part plus a
 * part per character of the request's messages, tools and arguments, so a real chat of any length
 * renders and a small request with a hostile template gets a small budget (see {@code
 * docs/contracts.md}, "Template budget").
 *
 * @param outputChars output characters any render may produce, and the largest single value
 * @param outputPerInputChar further output characters per input character
 * @param steps work steps (evaluated nodes, loop iterations, comparisons) any render may take
 * @param stepsPerInputChar further steps per input character
 * @param maxDepth nested macro, call-block and recursive-loop calls
 */
public record TemplateBudget(
    long outputChars, long outputPerInputChar, long steps, long stepsPerInputChar, int maxDepth) {

  /**
   * Measured on real templates with million-token chats (they use at most a third of any limit).
   */
  public static final TemplateBudget DEFAULTS = new TemplateBudget(1 << 20, 8, 2_000_000, 16, 200);

  public TemplateBudget {
    // The engine's checks, with its messages; the config loader bounds each key first.
    toEngine(outputChars, outputPerInputChar, steps, stepsPerInputChar, maxDepth);
  }

  RenderBudget toEngine() {
    return toEngine(outputChars, outputPerInputChar, steps, stepsPerInputChar, maxDepth);
  }

  private static RenderBudget toEngine(long o, long op, long s, long sp, int d) {
    return new RenderBudget(o, op, s, sp, d);
  }
}
