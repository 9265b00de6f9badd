package io.infera.sim.workload;

/**
 * A trace line that cannot be replayed. The message names the source and the 1-based line and says
 * what is wrong, fit to show a user as is (no stack trace needed); line 0 means the whole input.
 */
public final class TraceFormatException extends Exception {

  private final String source;
  private final int line;
  private final String detail;

  public TraceFormatException(String source, int line, String detail) {
    super(
        line > 0 ? source + ", line " + line + ": " + detail : source + ": " + detail,
        null,
        false,
        false);
    this.source = source;
    this.line = line;
    this.detail = detail;
  }

  /** The file name or other label of the input. */
  public String source() {
    return source;
  }

  /** The 1-based line number, or 0 when the problem is with the input as a whole. */
  public int line() {
    return line;
  }

  /** What is wrong, without the location. */
  public String detail() {
    return detail;
  }
}
