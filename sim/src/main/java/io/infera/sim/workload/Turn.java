package io.infera.sim.workload;

import java.util.Arrays;
import java.util.Objects;

/**
 * One user turn of a session: what the user says (as tokens and as the same content in text), how
 * many tokens the answer may have, and how long the user thinks before sending it.
 *
 * @param userTokens the user message; ids in [{@link Vocabulary#FIRST_ID}, {@link
 *     Vocabulary#END_ID}). Shared, never copied: treat as read-only.
 * @param userText the same content as text ({@link Vocabulary#text})
 * @param outputTokens the answer's length in tokens (the request's {@code max_tokens}), ≥ 1
 * @param thinkMs pause between the previous turn's answer arriving and this turn being sent, in ms;
 *     0 for a session's first turn (its start time already places it)
 * @param images keys of the images this turn attaches (the router's image keys; the simulated
 *     engine turns each into its own tokens, placed before the user message); empty for text only
 */
public record Turn(
    int[] userTokens, String userText, int outputTokens, double thinkMs, long[] images) {

  public Turn {
    images = images == null ? new long[0] : images.clone();
    Objects.requireNonNull(userTokens, "userTokens");
    Objects.requireNonNull(userText, "userText");
    if (outputTokens < 1) {
      throw new IllegalArgumentException("outputTokens must be >= 1, got " + outputTokens);
    }
    if (!(thinkMs >= 0) || Double.isInfinite(thinkMs)) {
      throw new IllegalArgumentException("thinkMs must be finite and >= 0, got " + thinkMs);
    }
  }

  /** A text-only turn. */
  public Turn(int[] userTokens, String userText, int outputTokens, double thinkMs) {
    this(userTokens, userText, outputTokens, thinkMs, null);
  }

  /** A copy of the image keys. */
  @Override
  public long[] images() {
    return images.clone();
  }

  /** A turn whose text is derived from its tokens. */
  public static Turn of(int[] userTokens, int outputTokens, double thinkMs) {
    return new Turn(userTokens, Vocabulary.text(userTokens), outputTokens, thinkMs);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Turn t
        && Arrays.equals(userTokens, t.userTokens)
        && userText.equals(t.userText)
        && outputTokens == t.outputTokens
        && Double.compare(thinkMs, t.thinkMs) == 0
        && Arrays.equals(images, t.images);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        Arrays.hashCode(userTokens), userText, outputTokens, thinkMs, Arrays.hashCode(images));
  }

  @Override
  public String toString() {
    return "Turn[userTokens="
        + userTokens.length
        + ", outputTokens="
        + outputTokens
        + ", thinkMs="
        + thinkMs
        + ", images="
        + images.length
        + "]";
  }
}
