package io.infera.router.tokenize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code limits.tokenizeMaxChars} and {@code tokenizeMaxPieceChars} at and past their limit. */
class TokenizeBudgetTest {

  private static PromptTokenizer small;

  @BeforeAll
  static void load() throws Exception {
    small =
        PromptTokenizer.load(
            new TokenizerSource.Builtin("qwen3"),
            PromptTokenizer.Options.defaults().withPrefixReuse(false).withBudget(1000, 100));
  }

  @AfterAll
  static void close() {
    small.close();
  }

  private static String words(int chars) {
    StringBuilder sb = new StringBuilder();
    while (sb.length() < chars) {
      sb.append("lorem ipsum dolor ");
    }
    return sb.substring(0, chars);
  }

  private static String reason(Runnable r) {
    try {
      r.run();
    } catch (TokenizeBudgetException e) {
      return e.reason();
    }
    return null;
  }

  @Test
  void aCompletionPromptAtTheLimitIsTokenizedAndOneCharMoreIsNot() {
    String at = words(1000);
    assertThat(small.encodeText(at).ids())
        .isEqualTo(small.tokenizer().encodeWhole(at, true))
        .isNotEmpty();
    assertThat(reason(() -> small.encodeText(words(1001))))
        .isEqualTo(TokenizeBudgetException.TOO_LONG);
  }

  @Test
  void aRenderedChatOverTheLimitIsNotEncoded() throws Exception {
    // 960 chars of content fit the messages check; the template's markers push it over
    ChatInput input = ChatInput.of(List.of(Map.of("role", "user", "content", words(990))));
    assertThat(small.render(input).length()).isGreaterThan(1000);
    assertThat(reason(() -> small.encodeChat(input, "{{ messages[0].content }}!!!!!!!!!!!")))
        .isEqualTo(TokenizeBudgetException.TOO_LONG);
    assertThatThrownBy(() -> small.encodeChat(input)).isInstanceOf(TokenizeBudgetException.class);
    ChatInput fits = ChatInput.of(List.of(Map.of("role", "user", "content", words(900))));
    assertThat(small.encodeChat(fits).ids()).isNotEmpty();
  }

  @Test
  void aWordOfExactlyThePieceLimitIsTokenizedAndOneLongerIsNot() {
    String at = "x".repeat(100);
    assertThat(small.encodeText(at).ids()).isEqualTo(small.tokenizer().encodeWhole(at, true));
    assertThat(reason(() -> small.encodeText("x".repeat(101))))
        .isEqualTo(TokenizeBudgetException.UNSPLITTABLE);
    // the same 101 chars as words: cut at a boundary, tokens unchanged
    String cuttable = words(999);
    assertThat(small.encodeText(cuttable).ids())
        .isEqualTo(small.tokenizer().encodeWhole(cuttable, true));
    for (String hostile :
        List.of(" ".repeat(500), "\n".repeat(500), "中".repeat(500), "lorem " + "y".repeat(200))) {
      assertThat(reason(() -> small.encodeText(hostile)))
          .as("%s…", hostile.substring(0, 3))
          .isEqualTo(TokenizeBudgetException.UNSPLITTABLE);
    }
  }

  @Test
  void theDefaultsAreTheConfigDefaults() {
    PromptTokenizer.Options d = PromptTokenizer.Options.defaults();
    assertThat(d.maxChars())
        .isEqualTo(io.infera.router.config.RouterConfig.Analysis.DEFAULT_TOKENIZE_MAX_CHARS);
    assertThat(d.maxPieceChars())
        .isEqualTo(io.infera.router.config.RouterConfig.Analysis.DEFAULT_TOKENIZE_MAX_PIECE_CHARS);
    assertThat(HfTokenizer.DEFAULT_MAX_PIECE_CHARS).isEqualTo(d.maxPieceChars());
  }
}
