package io.infera.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.tokenize.PromptTokenizer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AnswerVocabularyTest {

  private static PromptTokenizer tok;
  private static AnswerVocabulary vocabulary;

  @BeforeAll
  static void load() {
    tok = SharedTokenizer.qwen3();
    vocabulary = AnswerVocabulary.build(tok);
  }

  @Test
  void qwen3KeepsMostCandidateWords() {
    assertThat(vocabulary.size()).isGreaterThan(250);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 16, 100, 1000})
  void answersReencodeToTheirIds(int tokens) {
    AnswerVocabulary.Answer a = vocabulary.answer("chatcmpl-" + tokens, tokens);
    assertThat(a.length()).isEqualTo(tokens);
    assertThat(tok.encodeRendered(a.text(tokens))).containsExactly(a.ids());
    for (int i = 0; i < Math.min(tokens, 20); i++) {
      assertThat(tok.tokenizer().decode(new int[] {a.ids()[i]})).isEqualTo(a.pieces()[i]);
    }
  }

  @Test
  void answersAreDeterministicPerRequestId() {
    AnswerVocabulary.Answer a = vocabulary.answer("req-1", 50);
    assertThat(vocabulary.answer("req-1", 50).ids()).containsExactly(a.ids());
    assertThat(vocabulary.answer("req-2", 50).ids()).isNotEqualTo(a.ids());
    assertThat(a.text(3)).isEqualTo(a.pieces()[0] + a.pieces()[1] + a.pieces()[2]);
    assertThat(a.text(100)).isEqualTo(a.text(50));
  }

  @Test
  void aChatTurnContainingTheAnswerTokenizesItUnchanged() {
    AnswerVocabulary.Answer a = vocabulary.answer("turn-1", 30);
    String rendered = "<|im_start|>assistant\n" + a.text(30) + "<|im_end|>\n";
    int[] ids = tok.encodeRendered(rendered);
    int[] head = tok.encodeRendered("<|im_start|>assistant\n");
    int[] middle = java.util.Arrays.copyOfRange(ids, head.length, head.length + 30);
    assertThat(middle).containsExactly(a.ids());
  }
}
