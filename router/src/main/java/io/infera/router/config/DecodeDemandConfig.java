package io.infera.router.config;

import java.util.Locale;

/**
 * Decode input-demand routing ({@code policy.decodeInputDemand}, {@code
 * policy.decodeRequestWeight}, {@code policy.prefillGuardRelease}; docs/routing.md, "Decode input
 * demand").
 *
 * @param mode {@code OFF}: decode picks as before, nothing booked; {@code SHADOW}: the original
 *     pick, plus the demand bookkeeping, a suggested target and decision metrics; {@code ON}: the
 *     decode target with the lowest projected input demand wins
 * @param requestWeight W in {@code cost = in-flight input tokens + this request's tokens + W ×
 *     requests the target holds}; 0 unless {@code mode} is shadow or on
 * @param prefillGuardRelease when a prefill/decode pair's prefill booking is released
 */
public record DecodeDemandConfig(
    Mode mode, double requestWeight, GuardRelease prefillGuardRelease) {

  /** The largest {@code policy.decodeRequestWeight} (tokens per request). */
  public static final double MAX_REQUEST_WEIGHT = 1e9;

  public static final DecodeDemandConfig DEFAULTS =
      new DecodeDemandConfig(Mode.OFF, 0, GuardRelease.DECODE);

  public DecodeDemandConfig {
    if (mode == null || prefillGuardRelease == null) {
      throw new IllegalArgumentException("mode and prefillGuardRelease must be set");
    }
    if (!Double.isFinite(requestWeight)
        || requestWeight < 0
        || requestWeight > MAX_REQUEST_WEIGHT) {
      throw new IllegalArgumentException(
          "decodeRequestWeight: expected a finite number in [0, 1e9], got " + requestWeight);
    }
    if (requestWeight > 0 && mode == Mode.OFF) {
      throw new IllegalArgumentException(
          "decodeRequestWeight: "
              + requestWeight
              + " needs policy.decodeInputDemand shadow or on (it weighs requests in the demand"
              + " cost, which off does not compute)");
    }
  }

  /** Whether demand is booked (shadow or on). */
  public boolean books() {
    return mode != Mode.OFF;
  }

  /** {@code --decode-input-demand}: off, shadow or on. */
  public enum Mode {
    OFF,
    SHADOW,
    ON;

    /** Case-insensitive; YAML's unquoted {@code off}/{@code on} arrive as booleans, see loader. */
    public static Mode parse(String s) {
      try {
        return valueOf(s.strip().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("expected off, shadow or on, got '" + s + "'");
      }
    }

    public String wire() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * {@code --pd-prefill-guard-release}: {@code DECODE} keeps the prefill worker's booking until the
   * decode half ends (the engine holds the prompt's KV for the hand-over until then); {@code
   * COMPLETION} releases it when the prefill answer completes.
   */
  public enum GuardRelease {
    DECODE,
    COMPLETION;

    public static GuardRelease parse(String s) {
      try {
        return valueOf(s.strip().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("expected decode or completion, got '" + s + "'");
      }
    }

    public String wire() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
