package io.infera.router.engineload;

/** How one scrape of a worker's {@code /metrics} ended; the label of the scrape counter. */
public enum ScrapeOutcome {
  /** A snapshot with the load series was read. */
  OK("ok"),
  /** The worker answered with a status other than 200. */
  HTTP_ERROR("http_error"),
  /** No answer within {@code policy.engineLoad.timeoutMs}. */
  TIMEOUT("timeout"),
  /** The body passed {@code policy.engineLoad.maxBodyBytes}. */
  TOO_LARGE("too_large"),
  /** The connection failed (refused, reset, unresolvable). */
  CONNECT_ERROR("connect_error"),
  /** A 200 whose body held none of the load series of vLLM or SGLang. */
  NO_SERIES("no_series");

  private final String label;

  ScrapeOutcome(String label) {
    this.label = label;
  }

  /** The metric label value. */
  public String label() {
    return label;
  }
}
