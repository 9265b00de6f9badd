package io.infera.router.config;

/**
 * Render parity ({@code tokenizer.parity.*}, docs/routing.md "Render parity"): how often the router
 * compares each worker's {@code /tokenize} of a canonical conversation set with its own rendering,
 * and the bounds on one probe.
 *
 * @param enabled probe workers (off: every worker's parity is {@code disabled}, own tokens used)
 * @param intervalMs time between two periodic probes of one worker (discovery and restarts probe at
 *     once)
 * @param timeoutMs one {@code /tokenize} call slower than this fails the probe ({@code timeout})
 * @param maxAnswerBytes a {@code /tokenize} answer above this fails the probe ({@code too_large})
 */
public record ParityConfig(boolean enabled, long intervalMs, long timeoutMs, long maxAnswerBytes) {

  public static final boolean DEFAULT_ENABLED = true;
  public static final long DEFAULT_INTERVAL_MS = 600_000;
  public static final long DEFAULT_TIMEOUT_MS = 5_000;
  public static final long DEFAULT_MAX_ANSWER_BYTES = 1L << 20;

  public static final ParityConfig DEFAULTS =
      new ParityConfig(
          DEFAULT_ENABLED, DEFAULT_INTERVAL_MS, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_ANSWER_BYTES);

  public ParityConfig {
    if (intervalMs < 1 || timeoutMs < 1 || maxAnswerBytes < 1) {
      throw new IllegalArgumentException("intervalMs, timeoutMs and maxAnswerBytes must be >= 1");
    }
  }
}
