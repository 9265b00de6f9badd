package io.infera.jinja;

import io.infera.jinja.TemplateBudgetException.Limit;

/**
 * The running account of one render against its {@link RenderBudget}. One per render, installed for
 * the rendering thread, so the value helpers (strings, filters, formatting, JSON) check sizes
 * before they allocate without threading it through every call. Not thread-safe, as a render is
 * not.
 */
final class Meter {

  private static final ThreadLocal<Meter> CURRENT = new ThreadLocal<>();

  /** Allocation units of one collection item; a character is one unit. */
  static final long ITEM_UNITS = 4;

  /** Allocation units of one small fresh string (a code point of {@code list(s)}). */
  static final long STRING_UNITS = 24;

  /** Outside a render (helpers called directly): only the JVM's own limits apply. */
  private static final Meter UNMETERED =
      new Meter(
          RenderBudget.MAX_VALUE, RenderBudget.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, 1 << 20);

  final long maxOutput;
  final long maxValue;
  final long maxAllocation;
  final long maxSteps;
  final int maxDepth;
  private long output;
  private long allocated;
  private long steps;
  private int depth;

  Meter(long maxOutput, long maxValue, long maxAllocation, long maxSteps, int maxDepth) {
    this.maxOutput = maxOutput;
    this.maxValue = maxValue;
    this.maxAllocation = maxAllocation;
    this.maxSteps = maxSteps;
    this.maxDepth = maxDepth;
  }

  static Meter of(RenderBudget budget, long inputSize) {
    long out = budget.outputLimit(inputSize);
    return new Meter(
        out, out, budget.allocationLimit(inputSize), budget.stepLimit(inputSize), budget.depth());
  }

  static Meter current() {
    Meter m = CURRENT.get();
    return m == null ? UNMETERED : m;
  }

  /** Installs this meter for the calling thread; returns the one it replaces (usually null). */
  Meter install() {
    Meter previous = CURRENT.get();
    CURRENT.set(this);
    return previous;
  }

  static void restore(Meter previous) {
    if (previous == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(previous);
    }
  }

  /** One unit of work (a node, an iteration, a comparison). */
  void step() {
    if (++steps > maxSteps) {
      throw new TemplateBudgetException(Limit.STEPS, maxSteps);
    }
  }

  /** {@code n} units of work at once (a sort, a scan). */
  void steps(long n) {
    steps += Math.max(0, n);
    if (steps > maxSteps || steps < 0) {
      throw new TemplateBudgetException(Limit.STEPS, maxSteps);
    }
  }

  /**
   * Before a string of {@code size} characters (or a collection of {@code size} items) is built. A
   * negative size means the computation overflowed: too large.
   */
  void value(long size) {
    if (size < 0 || size > maxValue) {
      throw new TemplateBudgetException(Limit.VALUE, maxValue);
    }
    allocated += size;
    if (allocated > maxAllocation || allocated < 0) {
      throw new TemplateBudgetException(Limit.ALLOCATION, maxAllocation);
    }
  }

  /**
   * Before a list, tuple or dict of {@code n} items is built: the size limit, and {@link
   * #ITEM_UNITS} allocation units per item (a reference plus the collection's slack).
   */
  void items(long n) {
    if (n < 0 || n > maxValue) {
      throw new TemplateBudgetException(Limit.VALUE, maxValue);
    }
    allocate(Meter.times(n, ITEM_UNITS));
  }

  /** Allocation units without a size check (objects whose size is already checked). */
  void allocate(long units) {
    allocated += units;
    if (units < 0 || allocated > maxAllocation || allocated < 0) {
      throw new TemplateBudgetException(Limit.ALLOCATION, maxAllocation);
    }
  }

  /** Before {@code more} characters are appended to a buffer that holds {@code have}. */
  void grow(long have, long more) {
    if (more < 0 || have + more > maxValue || have + more < 0) {
      throw new TemplateBudgetException(Limit.VALUE, maxValue);
    }
    allocated += more;
    if (allocated > maxAllocation || allocated < 0) {
      throw new TemplateBudgetException(Limit.ALLOCATION, maxAllocation);
    }
  }

  /** Before {@code n} characters are written to the output (or a nested body). */
  void output(long n) {
    output += n;
    if (output > maxOutput || output < 0) {
      throw new TemplateBudgetException(Limit.OUTPUT, maxOutput);
    }
  }

  void enter() {
    if (++depth > maxDepth) {
      depth--;
      throw new TemplateBudgetException(Limit.DEPTH, maxDepth);
    }
  }

  void leave() {
    depth--;
  }

  /** Before an integer of about {@code bits} bits is computed. */
  static void integerBits(long bits) {
    if (bits > RenderBudget.INTEGER_BITS || bits < 0) {
      throw new TemplateBudgetException(Limit.INTEGER, RenderBudget.INTEGER_BITS);
    }
  }

  /** {@code a × b} for sizes; negative (too large) when it overflows. */
  static long times(long a, long b) {
    long r = RenderBudget.saturatedMultiply(Math.max(0, a), Math.max(0, b));
    return r == Long.MAX_VALUE ? -1 : r;
  }

  long stepsUsed() {
    return steps;
  }

  long allocated() {
    return allocated;
  }

  long outputUsed() {
    return output;
  }
}
