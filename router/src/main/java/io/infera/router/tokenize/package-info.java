/**
 * Tokenization byte-identical to the engines: Hugging Face tokenizers through DJL, chat templates
 * through the {@code jinja} module's {@link io.infera.jinja} engine, requests normalized the way
 * vLLM normalizes them (Anthropic Messages and OpenAI Responses bodies first converted to the chat
 * requests vLLM renders for them), and multi-turn prefix reuse.
 *
 * <p>This is the only router package that uses the engine (JinjaUseTest checks): template failures
 * leave it as {@link io.infera.router.tokenize.ChatTemplateException} (render) or {@link
 * io.infera.router.tokenize.TokenizerException} (loading a model's template).
 *
 * <p>Invariants: truncation is always off; chat prompts are rendered, then encoded without added
 * special tokens; completion prompts are encoded with them; a cached prefix is reused only up to an
 * added-token boundary, where tokenization provably splits (checked per tokenizer at load).
 */
package io.infera.router.tokenize;
