package io.infera.router.parity;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.openhft.hashing.LongHashFunction;

/**
 * The pure comparison of one probe: per case the router's token ids against the worker's, then the
 * verdict. Stateless.
 */
public final class ParityCheck {

  private ParityCheck() {}

  /** The index of the first differing token of {@code a} and {@code b}, or -1 when equal. */
  public static int firstDifference(int[] a, int[] b) {
    int n = Math.min(a.length, b.length);
    for (int i = 0; i < n; i++) {
      if (a[i] != b[i]) {
        return i;
      }
    }
    return a.length == b.length ? -1 : n;
  }

  /**
   * The verdict of a probe in which the worker answered every case.
   *
   * @param router the router's ids per case name, in probe order
   * @param engine the worker's ids per case name (the same names)
   * @param nowMillis the verdict's time
   * @throws IllegalArgumentException when a case lacks the worker's answer
   */
  public static WorkerParity verdict(
      Map<String, int[]> router, Map<String, int[]> engine, long nowMillis) {
    List<CaseResult> cases = new ArrayList<>(router.size());
    CaseResult firstDiff = null;
    boolean textDiffers = false;
    LongHashFunction xx = LongHashFunction.xx3();
    long variant = 0;
    for (Map.Entry<String, int[]> e : router.entrySet()) {
      int[] theirs = engine.get(e.getKey());
      if (theirs == null) {
        throw new IllegalArgumentException("no engine answer for case " + e.getKey());
      }
      CaseResult r =
          new CaseResult(
              e.getKey(),
              e.getValue().length,
              theirs.length,
              firstDifference(e.getValue(), theirs));
      cases.add(r);
      variant = variant * 31 + xx.hashInts(theirs);
      if (!r.matches()) {
        firstDiff = firstDiff == null ? r : firstDiff;
        textDiffers |= ProbeCase.TEXT.equals(r.name());
      }
    }
    if (firstDiff == null) {
      return new WorkerParity(
          ParityStatus.MATCH,
          null,
          0,
          cases,
          cases.size() + " cases tokenize as the router does",
          nowMillis);
    }
    Divergence kind = textDiffers ? Divergence.TOKENIZER : Divergence.TEMPLATE;
    return new WorkerParity(
        ParityStatus.DIVERGED,
        kind,
        variant == 0 ? 1 : variant,
        cases,
        (kind == Divergence.TOKENIZER
                ? "the worker tokenizes plain text differently; "
                : "the worker renders chats differently; ")
            + firstDiff.describe(),
        nowMillis);
  }

  /** A probe that ended without the worker's answers to every case. */
  public static WorkerParity notCompared(ParityStatus status, String detail, long nowMillis) {
    if (status != ParityStatus.UNSUPPORTED && status != ParityStatus.FAILED) {
      throw new IllegalArgumentException("not a failed probe: " + status);
    }
    return new WorkerParity(status, null, 0, List.of(), detail, nowMillis);
  }
}
