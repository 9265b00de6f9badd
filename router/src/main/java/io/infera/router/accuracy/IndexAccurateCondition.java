package io.infera.router.accuracy;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code IndexAccurate} condition: whether the engines' reported cache hits confirm the
 * router's predicted ones over the sliding window.
 *
 * @param reason CamelCase: {@code Accurate}, {@code PhantomHits} (precision below its threshold:
 *     the router predicts hits the engines do not have, e.g. missed removals), {@code MissedHits}
 *     (recall below its threshold: the engines have hits the router does not see, e.g. dropped
 *     events), {@code NotReported} (answers arrive, none reports cached tokens), {@code
 *     TooFewSamples}
 */
public record IndexAccurateCondition(Status status, String reason, String message) {

  /** Kubernetes condition status. */
  public enum Status {
    TRUE,
    FALSE,
    UNKNOWN;

    /** {@code True}, {@code False}, {@code Unknown}. */
    public String wireName() {
      String s = name().toLowerCase(Locale.ROOT);
      return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
  }

  /**
   * Thresholds: with fewer than {@code minSamples} reported comparisons in the window the condition
   * is Unknown.
   */
  public record Thresholds(int minSamples, double minPrecision, double minRecall) {}

  /**
   * The condition the window's evidence supports. Pure. (The per-answer comparison is the only
   * evidence today; the engines' own prefix-cache counters, scraped from {@code /metrics}, are a
   * second one that would join here as another parameter.)
   */
  static IndexAccurateCondition evaluate(AccuracyWindow.Stats s, Thresholds t) {
    if (s.known() < t.minSamples()) {
      if (s.known() == 0 && s.unknown() >= t.minSamples()) {
        return new IndexAccurateCondition(
            Status.UNKNOWN,
            "NotReported",
            s.unknown()
                + " answers in the window, none reports usage.prompt_tokens_details.cached_tokens"
                + " (vLLM: --enable-prompt-tokens-details; SGLang: --enable-cache-report;"
                + " streams: stream_options.include_usage)");
      }
      return new IndexAccurateCondition(
          Status.UNKNOWN,
          "TooFewSamples",
          s.known() + " answers with cached tokens in the window, " + t.minSamples() + " needed");
    }
    Double precision = s.precision();
    Double recall = s.recall();
    if (precision != null && precision < t.minPrecision()) {
      return new IndexAccurateCondition(
          Status.FALSE,
          "PhantomHits",
          String.format(
              Locale.ROOT,
              "of %d blocks predicted cached, the engines reported %d (precision %.3f < %.3f)"
                  + " over %d answers: the index holds blocks the engines no longer have",
              s.predicted(),
              s.predictedHit(),
              precision,
              t.minPrecision(),
              s.known()));
    }
    if (recall != null && recall < t.minRecall()) {
      return new IndexAccurateCondition(
          Status.FALSE,
          "MissedHits",
          String.format(
              Locale.ROOT,
              "of %d blocks the engines reported cached, the router predicted %d (recall %.3f <"
                  + " %.3f) over %d answers: the index misses blocks the engines hold",
              s.reported(),
              s.predictedHit(),
              recall,
              t.minRecall(),
              s.known()));
    }
    return new IndexAccurateCondition(
        Status.TRUE,
        "Accurate",
        String.format(
            Locale.ROOT,
            "precision %s, recall %s over %d answers",
            fmt(precision),
            fmt(recall),
            s.known()));
  }

  private static String fmt(Double d) {
    return d == null ? "n/a" : String.format(Locale.ROOT, "%.3f", d);
  }

  /** The {@code index_accurate} object of {@code GET /v1/admin/status} (without the numbers). */
  public Map<String, Object> fields() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("status", status.wireName());
    out.put("reason", reason);
    out.put("message", message);
    return out;
  }
}
