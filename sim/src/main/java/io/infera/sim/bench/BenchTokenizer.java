package io.infera.sim.bench;

import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.TokenizerSource;

/**
 * The vendored Qwen3 tokenizer shared by every live engine, router and client in this JVM, loaded
 * once (loading takes about two seconds; each user leaves it open).
 */
public final class BenchTokenizer {

  private static PromptTokenizer tokenizer;

  private BenchTokenizer() {}

  /** The shared tokenizer, loaded on first use. */
  public static synchronized PromptTokenizer qwen3() throws Exception {
    if (tokenizer == null) {
      tokenizer =
          PromptTokenizer.load(
              new TokenizerSource.Builtin("qwen3"), PromptTokenizer.Options.defaults());
    }
    return tokenizer;
  }
}
