package io.infera.jinja;

/**
 * The limits of one render, in a fixed part plus a part that grows with the size of the input
 * variables, so a real chat of any length renders while a tiny request with a hostile template gets
 * a tiny budget.
 *
 * <p>The input size is the characters of every string in the variables plus {@link #VALUE_OVERHEAD}
 * per value (map, list, number, …), so a conversation of many short messages counts for its
 * structure too. For a render of input size {@code n}:
 *
 * <ul>
 *   <li>output: at most {@code outputChars + outputPerInputChar × n} characters, and no single
 *       string, list, tuple or dict may hold more characters or items than that;
 *   <li>memory: the characters and items allocated during the render (every string, list and dict
 *       built, live or not) at most {@link #ALLOCATION_PER_OUTPUT_CHAR} times the output limit;
 *   <li>work: at most {@code steps + stepsPerInputChar × n} steps (one per evaluated node, loop
 *       iteration, comparison);
 *   <li>nesting: at most {@code depth} nested macro, call-block and recursive-loop calls.
 * </ul>
 *
 * Every limit is checked before the allocation or step that would break it; exceeding one throws
 * {@link TemplateBudgetException}. Sums saturate; a single value never exceeds what a Java array
 * can hold.
 */
public record RenderBudget(
    long outputChars, long outputPerInputChar, long steps, long stepsPerInputChar, int depth) {

  /** Input size every value adds on top of its characters. */
  public static final long VALUE_OVERHEAD = 16;

  /** Allocated characters and items a render may produce per character of its output limit. */
  public static final long ALLOCATION_PER_OUTPUT_CHAR = 4;

  /** Bits one integer may have (Python's int is unbounded; {@code 10 ** 10 ** 9} is not). */
  public static final int INTEGER_BITS = 1 << 16;

  /**
   * Input beyond this size buys no more budget. Without the cap a body of tens of megabytes of tiny
   * values (16 units each) would scale a hostile template's allowance to near a gigabyte; a
   * million-token chat has an input size of about 4.2 M, below it.
   */
  public static final long MAX_SCALED_INPUT = 1L << 23;

  /** The largest string or collection a JVM can allocate, with headroom. */
  static final long MAX_VALUE = Integer.MAX_VALUE - 16;

  /**
   * Defaults measured on real chat templates (see {@code docs/contracts.md}): 1 Mi characters plus
   * 8 per input character of output (tojson with {@code ensure_ascii} writes up to 6 per
   * character), 2,000,000 steps plus 16 per input character, call depth 200.
   */
  public static final RenderBudget DEFAULT = new RenderBudget(1 << 20, 8, 2_000_000, 16, 200);

  public RenderBudget {
    if (outputChars < 1 || outputPerInputChar < 0 || steps < 1 || stepsPerInputChar < 0) {
      throw new IllegalArgumentException(
          "render budget: outputChars and steps must be positive, the per-input factors >= 0");
    }
    if (depth < 1) {
      throw new IllegalArgumentException("render budget: depth must be positive");
    }
  }

  /** The output limit (and the size limit of any one value) for an input of {@code size}. */
  public long outputLimit(long inputSize) {
    return Math.min(MAX_VALUE, affine(outputChars, outputPerInputChar, inputSize));
  }

  /** The step limit for an input of {@code size}. */
  public long stepLimit(long inputSize) {
    return affine(steps, stepsPerInputChar, inputSize);
  }

  /** The allocation limit (characters and items) for an input of {@code size}. */
  public long allocationLimit(long inputSize) {
    return saturatedMultiply(outputLimit(inputSize), ALLOCATION_PER_OUTPUT_CHAR);
  }

  private static long affine(long base, long perInput, long inputSize) {
    long scaled = saturatedMultiply(perInput, Math.min(MAX_SCALED_INPUT, Math.max(0, inputSize)));
    long sum = base + scaled;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }

  static long saturatedMultiply(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    return (hi == 0 && lo >= 0) ? lo : Long.MAX_VALUE;
  }
}
