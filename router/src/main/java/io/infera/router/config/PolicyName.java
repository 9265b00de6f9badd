package io.infera.router.config;

/** The selectable policies ({@code --router-policy}). */
public enum PolicyName {
  /** Cache overlap against load: the default. */
  KV_AWARE("kv-aware"),
  /**
   * Cache overlap against load like kv-aware, but the overlap is learned from the router's own
   * routing history (for engines that publish no KV events).
   */
  APPROX_PREFIX("approx-prefix"),
  /** Lowest in-flight plus recent load; ignores the cache. */
  LEAST_LOADED("least-loaded"),
  /** Each worker in turn. */
  ROUND_ROBIN("round-robin");

  private final String wireName;

  PolicyName(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  public static PolicyName parse(String s) {
    for (PolicyName p : values()) {
      if (p.wireName.equals(s)) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "unknown policy '"
            + s
            + "', expected one of kv-aware, approx-prefix, least-loaded, round-robin");
  }
}
