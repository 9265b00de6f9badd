package io.infera.router.tokenize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PromptTokenizerTest {

  private static PromptTokenizer tiny(String name) throws Exception {
    return PromptTokenizer.load(
        new TokenizerSource.Directory(TestTokenizers.resource(name)),
        PromptTokenizer.Options.defaults());
  }

  @Test
  void truncationIsOffEvenFarBeyond512Tokens() {
    PromptTokenizer q = TestTokenizers.qwen3();
    int[] ids = q.encodeText("hello world ".repeat(5000)).ids();
    assertThat(ids.length).isGreaterThan(9000);
  }

  @Test
  void completionPromptsGetSpecialTokensAndChatPromptsDoNot() throws Exception {
    try (PromptTokenizer t = tiny("tiny-bos")) {
      assertThat(t.encodeText("hello world").ids()).containsExactly(1, 4, 5);
      Tokenized chat =
          t.encodeChat(ChatInput.of(List.of(Map.of("role", "user", "content", "hello"))));
      // The template itself emits bos_token once; encoding adds nothing.
      assertThat(chat.rendered()).isEqualTo("<s>user: hello<|end|>assistant:");
      assertThat(chat.ids()).containsExactly(1, 6, 8, 4, 2, 7, 8);
    }
  }

  @Test
  void everyPromptShapeIsHandledAsVllmDoes() throws Exception {
    try (PromptTokenizer t = tiny("tiny-bos")) {
      assertThat(t.tokenize(new Prompt.Text("hello")).orElseThrow().ids()).containsExactly(1, 4);
      assertThat(t.tokenize(new Prompt.Tokens(new int[] {9, 8, 7})).orElseThrow().ids())
          .containsExactly(9, 8, 7);
      assertThat(
              t.tokenize(
                      new Prompt.Chat(
                          ChatInput.of(List.of(Map.of("role", "user", "content", "world")))))
                  .orElseThrow()
                  .ids())
          .containsExactly(1, 6, 8, 5, 2, 7, 8);
      assertThat(t.tokenize(new Prompt.Batch(List.of("a", "b")))).isEmpty();
    }
  }

  @Test
  void namedTemplatesPickToolUseWhenToolsAreGiven() throws Exception {
    try (PromptTokenizer t = tiny("tiny-bos")) {
      List<Object> msgs = List.of(Map.of("role", "user", "content", "hello"));
      String withTools =
          t.render(
              new ChatInput(
                  msgs, List.of(Map.of("type", "function")), null, true, false, Map.of()));
      assertThat(withTools).startsWith("TOOLS1");
      assertThat(t.render(ChatInput.of(msgs))).startsWith("<s>");
      assertThat(t.template().specialTokens())
          .containsEntry("bos_token", "<s>")
          .containsEntry("eos_token", "<|end|>")
          .doesNotContainKey("pad_token");
    }
  }

  @Test
  void reuseIsDisabledForTokenizersThatDoNotSplitCleanly() throws Exception {
    try (PromptTokenizer ok = tiny("tiny-bos");
        PromptTokenizer meta = tiny("tiny-metaspace")) {
      assertThat(ok.reuseDisabledReason()).isNull();
      assertThat(meta.reuseDisabledReason()).contains("does not split cleanly");
    }
  }

  @Test
  void reusedPrefixesGiveTheSameIdsAsAFreshEncode() {
    PromptTokenizer q = TestTokenizers.qwen3();
    assertThat(q.reuseDisabledReason()).isNull();
    List<Object> msgs = new ArrayList<>();
    msgs.add(Map.of("role", "system", "content", "You are a careful assistant."));
    for (int turn = 0; turn < 10; turn++) {
      msgs.add(
          Map.of("role", "user", "content", "Question " + turn + ": what is " + turn + "+1?  "));
      Tokenized t;
      try {
        t = q.encodeChat(ChatInput.of(new ArrayList<>(msgs)));
      } catch (TokenizerException e) {
        throw new AssertionError(e);
      }
      assertThat(t.ids()).isEqualTo(q.encodeRendered(t.rendered()));
      if (turn > 0) {
        assertThat(t.reusedTokens()).as("turn %d reuses the history", turn).isGreaterThan(10);
      }
      msgs.add(Map.of("role", "assistant", "content", "It is " + (turn + 1) + "."));
    }
    assertThat(q.cacheStats().get("hits")).isGreaterThanOrEqualTo(9);
  }

  @Test
  void templateErrorsSurfaceAsChatTemplateExceptions() throws Exception {
    try (PromptTokenizer t = tiny("tiny-bos")) {
      List<Object> bad = List.of(Map.of("role", "user"));
      assertThat(t.render(ChatInput.of(bad))).isEqualTo("<s>user: <|end|>assistant:");
    }
    assertThatThrownBy(
            () ->
                ChatTemplate.of("{{ raise_exception('no system role') }}", Map.of())
                    .render(ChatInput.of(List.of())))
        .isInstanceOf(ChatTemplateException.class)
        .hasMessage("no system role")
        .hasCauseInstanceOf(io.infera.jinja.TemplateException.class);
  }

  @Test
  void continueFinalMessageCutsAfterTheLastMessage() {
    ChatTemplate t =
        ChatTemplate.of(
            "{% for m in messages %}<{{ m.role }}>{{ m.content }}</{{ m.role }}>{% endfor %}",
            Map.of());
    List<Object> msgs =
        List.of(
            Map.of("role", "user", "content", "hi"),
            Map.of("role", "assistant", "content", "The answer is"));
    assertThat(t.render(new ChatInput(msgs, null, null, false, true, Map.of())))
        .isEqualTo("<user>hi</user><assistant>The answer is");
  }

  @Test
  void anUnpairedSurrogateOnlyChangesItsOwnTokens() {
    PromptTokenizer q = TestTokenizers.qwen3();
    String emoji = "smile \uD83D\uDE00 and \uD83D\uDC4D done";
    int[] clean = q.encodeRendered(emoji);
    // A JSON body may carry a lone "\\ud83d"; it must not turn every other emoji into U+FFFD.
    int[] withLone = q.encodeRendered(emoji + " \uD83D");
    int[] expected = q.encodeRendered(emoji + " \uFFFD");
    assertThat(withLone).isEqualTo(expected);
    assertThat(Arrays.copyOf(withLone, clean.length)).isEqualTo(clean);
    assertThat(q.encodeRendered("\uDE00x\uD83D")).isEqualTo(q.encodeRendered("\uFFFDx\uFFFD"));
    assertThat(HfTokenizer.wellFormed(emoji)).isSameAs(emoji);
  }
}
