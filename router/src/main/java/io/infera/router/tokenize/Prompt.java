package io.infera.router.tokenize;

import java.util.List;

/**
 * What a request asks the engine to continue, in the shapes the OpenAI API allows. Only a single
 * prompt can be matched against the cache; a batch of prompts is routed by load alone.
 */
public sealed interface Prompt {

  /** {@code /v1/completions} with a string prompt: encoded with special tokens. */
  record Text(String text) implements Prompt {}

  /** {@code /v1/completions} with an array of token ids: used as is. */
  record Tokens(int[] ids) implements Prompt {}

  /**
   * {@code /v1/chat/completions}: rendered with the chat template, encoded without specials.
   *
   * @param template the request's own {@code chat_template} (Jinja source), or null for the model's
   */
  record Chat(ChatInput input, String template) implements Prompt {
    public Chat(ChatInput input) {
      this(input, null);
    }
  }

  /** Several prompts in one request (strings or token arrays): no single prefix to match. */
  record Batch(List<Object> prompts) implements Prompt {
    public Batch {
      prompts = List.copyOf(prompts);
    }
  }
}
