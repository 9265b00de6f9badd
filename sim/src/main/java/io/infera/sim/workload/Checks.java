package io.infera.sim.workload;

import java.util.Locale;

/** Argument checks whose messages name the knob. */
final class Checks {

  private Checks() {}

  static void positive(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be >= 1, got " + value);
    }
  }

  static void atLeastZero(String name, int value) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must be >= 0, got " + value);
    }
  }

  static void finiteAtLeastZero(String name, double value) {
    if (!(value >= 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(name + " must be finite and >= 0, got " + value);
    }
  }

  static String lower(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }
}
