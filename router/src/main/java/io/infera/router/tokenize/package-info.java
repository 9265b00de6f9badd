/**
 * Tokenization byte-identical to the engines: Hugging Face tokenizers through DJL, chat templates
 * through {@link io.infera.router.tokenize.jinja}, requests normalized the way vLLM normalizes
 * them, and multi-turn prefix reuse.
 *
 * <p>Invariants: truncation is always off; chat prompts are rendered, then encoded without added
 * special tokens; completion prompts are encoded with them; a cached prefix is reused only up to an
 * added-token boundary, where tokenization provably splits (checked per tokenizer at load).
 */
package io.infera.router.tokenize;
