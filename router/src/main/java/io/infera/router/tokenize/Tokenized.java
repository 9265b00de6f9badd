package io.infera.router.tokenize;

/**
 * A tokenized prompt.
 *
 * @param ids token ids the engine will see
 * @param rendered the rendered chat text, or null for text and token prompts
 * @param reusedTokens leading ids taken from the prefix cache instead of being re-encoded
 * @param renderNanos time spent rendering the chat template
 * @param encodeNanos time spent encoding (prefix lookup included)
 */
public record Tokenized(
    int[] ids, String rendered, int reusedTokens, long renderNanos, long encodeNanos) {}
