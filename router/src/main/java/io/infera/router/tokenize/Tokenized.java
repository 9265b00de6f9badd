package io.infera.router.tokenize;

/**
 * A tokenized prompt.
 *
 * @param ids token ids the engine will see
 * @param rendered the rendered chat text, or null for text and token prompts
 * @param reusedTokens leading ids taken from the prefix cache instead of being re-encoded
 * @param renderNanos time spent rendering the chat template
 * @param encodeNanos time spent encoding (prefix lookup included)
 * @param reusedFrom the ids of the earlier prompt whose first {@code reusedTokens} ids these are
 *     (copied from it, so equal to them), or null when nothing was reused; the block hasher reuses
 *     that prompt's hash chain as far ({@link io.infera.router.kv.ChainMemo})
 */
public record Tokenized(
    int[] ids,
    String rendered,
    int reusedTokens,
    long renderNanos,
    long encodeNanos,
    int[] reusedFrom) {

  /** A prompt encoded without reuse. */
  public Tokenized(
      int[] ids, String rendered, int reusedTokens, long renderNanos, long encodeNanos) {
    this(ids, rendered, reusedTokens, renderNanos, encodeNanos, null);
  }
}
