package io.infera.router.accuracy;

/**
 * What an engine's answer says about the prompt tokens it found cached. A missing or null field is
 * {@link Unknown}, never 0.
 */
public sealed interface CachedTokens {

  /** The answer carried {@code usage.prompt_tokens_details.cached_tokens}. */
  record Reported(long tokens) implements CachedTokens {
    public Reported {
      if (tokens < 0) {
        throw new IllegalArgumentException("tokens must be >= 0");
      }
    }
  }

  /** The answer did not say; {@code why} is a metric label. */
  record Unknown(Why why) implements CachedTokens {}

  /** Why an answer's cached tokens are unknown. */
  enum Why {
    /** No {@code usage} object (a stream without {@code include_usage}, or an engine without). */
    NO_USAGE,
    /** {@code usage} without {@code prompt_tokens_details} (vLLM without the flag that adds it). */
    NO_DETAILS,
    /** {@code prompt_tokens_details} without {@code cached_tokens}. */
    NO_CACHED_TOKENS,
    /** Not JSON, wrong types, or a negative or out-of-range count. */
    MALFORMED,
    /** Longer than the budget the router parses. */
    TOO_LARGE;

    /** Lower-case label ({@code no_usage}). */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** Shared instances, so the hot path allocates nothing for the common unknowns. */
  Unknown NO_USAGE = new Unknown(Why.NO_USAGE);

  Unknown NO_DETAILS = new Unknown(Why.NO_DETAILS);

  Unknown NO_CACHED_TOKENS = new Unknown(Why.NO_CACHED_TOKENS);

  Unknown MALFORMED = new Unknown(Why.MALFORMED);

  Unknown TOO_LARGE = new Unknown(Why.TOO_LARGE);
}
