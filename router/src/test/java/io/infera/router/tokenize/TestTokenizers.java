package io.infera.router.tokenize;

import java.net.URISyntaxException;
import java.nio.file.Path;

/** Shared tokenizers for tests: the vendored Qwen3 one is loaded once per JVM. */
public final class TestTokenizers {

  private static PromptTokenizer qwen3;

  private TestTokenizers() {}

  /** Qwen3 with prefix reuse on; shared, do not close. */
  public static synchronized PromptTokenizer qwen3() {
    if (qwen3 == null) {
      try {
        qwen3 =
            PromptTokenizer.load(
                new TokenizerSource.Builtin("qwen3"),
                PromptTokenizer.Options.defaults()
                    .withClock(io.infera.jinja.ChatGoldens.FIXED_CLOCK));
      } catch (TokenizerException e) {
        throw new IllegalStateException(e);
      }
    }
    return qwen3;
  }

  public static Path resource(String path) {
    try {
      return Path.of(TestTokenizers.class.getResource("/tokenizers/" + path).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
