package io.infera.router.config;

import java.util.Locale;

/** A worker pool's role in (dis)aggregated serving. */
public enum Role {
  MIXED,
  PREFILL,
  DECODE;

  /** The lower-case name used in configs and APIs. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code mixed}, {@code prefill} or {@code decode}. */
  public static Role parse(String s) {
    for (Role r : values()) {
      if (r.wireName().equals(s)) {
        return r;
      }
    }
    throw new IllegalArgumentException(
        "unknown role '" + s + "', expected one of mixed, prefill, decode");
  }
}
