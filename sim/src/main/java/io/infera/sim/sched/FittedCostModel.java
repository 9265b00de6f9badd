package io.infera.sim.sched;

/**
 * A prefill-quadratic plus memory-bound-decode step cost; the record's components are the
 * constants, so benchmarks can tweak them ({@code new FittedCostModel(…)} or {@code with…} copies).
 *
 * <p>Prefill (when {@code T = prefillTokens > 0}): {@code prefillA·T² + prefillB·T + prefillC} ms —
 * compute-bound, linear in the tokens through the MLPs with a quadratic attention term. The default
 * constants are a quadratic fit of prefill latency for an 8B model on one H100 as used by LLM
 * inference simulators (the constants given in the simulator's issue, not re-measured here; see the
 * README's simulator section).
 *
 * <p>Decode is memory-bound: every step streams the weights once (≈16 GB of bf16 8B weights at
 * ≈3.35 TB/s is ≈5 ms; with launch and sampling overheads {@code decodeBaseMs} = 7 ms), plus the KV
 * of every context token read ({@code 2 × 32 layers × 8 KV heads × 128 dims × 2 bytes} = 128 KiB
 * per token at 3.35 TB/s ≈ {@code 4e-5} ms), plus a small per-sequence cost (sampling,
 * bookkeeping). In a mixed step the prefill term already pays for the weight pass, so the base is
 * charged only when there is no prefill; the KV and per-sequence terms are always added.
 *
 * @param prefillA ms per prefill token squared
 * @param prefillB ms per prefill token
 * @param prefillC fixed ms of a step that has prefill
 * @param decodeBaseMs fixed ms of a decode-only step
 * @param perContextTokenMs ms per KV token read by the batch
 * @param perDecodeSeqMs ms per decoding sequence
 */
public record FittedCostModel(
    double prefillA,
    double prefillB,
    double prefillC,
    double decodeBaseMs,
    double perContextTokenMs,
    double perDecodeSeqMs)
    implements CostModel {

  /** 8B model on one H100: prefill {@code 4.21e-7·T² + 1.518e-2·T + 16.5}, decode 7 ms base. */
  public static final FittedCostModel H100_8B =
      new FittedCostModel(4.21e-7, 1.518e-2, 16.5, 7.0, 4.0e-5, 0.02);

  public FittedCostModel {
    requireNonNegative("prefillA", prefillA);
    requireNonNegative("prefillB", prefillB);
    requireNonNegative("prefillC", prefillC);
    requireNonNegative("decodeBaseMs", decodeBaseMs);
    requireNonNegative("perContextTokenMs", perContextTokenMs);
    requireNonNegative("perDecodeSeqMs", perDecodeSeqMs);
  }

  @Override
  public double stepMs(int prefillTokens, int decodeSeqs, long contextTokens) {
    if (prefillTokens < 0 || decodeSeqs < 0 || contextTokens < 0) {
      throw new IllegalArgumentException(
          "negative step shape: prefillTokens="
              + prefillTokens
              + " decodeSeqs="
              + decodeSeqs
              + " contextTokens="
              + contextTokens);
    }
    if (prefillTokens == 0 && decodeSeqs == 0) {
      return 0.0;
    }
    double t = prefillTokens;
    double ms = prefillTokens > 0 ? prefillA * t * t + prefillB * t + prefillC : decodeBaseMs;
    return ms + perContextTokenMs * contextTokens + perDecodeSeqMs * decodeSeqs;
  }

  /** A copy with other prefill constants. */
  public FittedCostModel withPrefill(double a, double b, double c) {
    return new FittedCostModel(a, b, c, decodeBaseMs, perContextTokenMs, perDecodeSeqMs);
  }

  /** A copy with other decode/memory constants. */
  public FittedCostModel withDecode(double baseMs, double perContextToken, double perDecodeSeq) {
    return new FittedCostModel(prefillA, prefillB, prefillC, baseMs, perContextToken, perDecodeSeq);
  }

  private static void requireNonNegative(String name, double v) {
    if (!(v >= 0) || Double.isInfinite(v)) {
      throw new IllegalArgumentException(name + " must be finite and >= 0, got " + v);
    }
  }
}
