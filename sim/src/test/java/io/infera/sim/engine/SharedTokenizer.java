package io.infera.sim.engine;

import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.TokenizerException;

/** The builtin Qwen3 tokenizer, loaded once per test JVM (loading takes about two seconds). */
final class SharedTokenizer {

  private static PromptTokenizer tokenizer;

  private SharedTokenizer() {}

  static synchronized PromptTokenizer qwen3() {
    if (tokenizer == null) {
      try {
        tokenizer = PromptTokenizer.load("builtin:qwen3", PromptTokenizer.Options.defaults());
      } catch (TokenizerException e) {
        throw new IllegalStateException(e);
      }
    }
    return tokenizer;
  }
}
