package io.infera.router.config;

import java.util.Locale;

/**
 * {@code policy.overlapWeightMode}: {@code auto} tunes each pool's overlap weight online from the
 * time to first token it observes; {@code fixed} keeps {@code policy.overlapWeight} (and the
 * per-role weights) as given.
 */
public enum OverlapWeightMode {
  AUTO,
  FIXED;

  /** {@code auto} or {@code fixed}, case-insensitive. */
  public static OverlapWeightMode parse(String s) {
    try {
      return valueOf(s.strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("expected auto or fixed, got '" + s + "'");
    }
  }

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }
}
