package io.infera.sim.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.json.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PromptsTest {

  @Test
  void tokensInterleaveUsersAndAnswersAfterTheSystemPrompt() {
    int[] prompt =
        Prompts.tokens(
            new int[] {1, 2}, List.of(new int[] {3}, new int[] {5, 6}), List.of(new int[] {4}));
    assertThat(prompt).containsExactly(1, 2, 3, 4, 5, 6);
    assertThat(Prompts.tokens(new int[0], List.of(new int[] {7}), List.of())).containsExactly(7);
  }

  @Test
  void messagesAreOpenAiChatMessages() {
    List<Map<String, Object>> m =
        Prompts.messages("be brief", List.of("hi", "again"), List.of("ok"));
    assertThat(Json.write(m))
        .isEqualTo(
            "[{\"role\":\"system\",\"content\":\"be brief\"},"
                + "{\"role\":\"user\",\"content\":\"hi\"},"
                + "{\"role\":\"assistant\",\"content\":\"ok\"},"
                + "{\"role\":\"user\",\"content\":\"again\"}]");
  }

  @Test
  void emptySystemTextMeansNoSystemMessage() {
    List<Map<String, Object>> m = Prompts.messages("", List.of("hi"), List.of());
    assertThat(m).containsExactly(Map.of("role", "user", "content", "hi"));
  }

  @Test
  void answerCountMustMatch() {
    assertThatThrownBy(() -> Prompts.messages("", List.of("a", "b"), List.of()))
        .hasMessageContaining("need 1 answers, got 0");
    assertThatThrownBy(() -> Prompts.tokens(new int[0], List.of(), List.of()))
        .hasMessageContaining("at least one user message");
  }

  @Test
  void sessionBuildsTurnKFromItsPieces() {
    Session s =
        new Session(
            "s",
            0,
            new int[] {1000},
            "the",
            List.of(Turn.of(new int[] {1001}, 4, 0), Turn.of(new int[] {1002}, 4, 10)),
            "s");
    assertThat(s.promptTokens(1, List.of(new int[] {1003})))
        .containsExactly(1000, 1001, 1003, 1002);
    assertThat(s.messages(1, List.of("answer")))
        .extracting(x -> x.get("content"))
        .containsExactly("the", "and", "answer", Vocabulary.word(1002));
    assertThatThrownBy(() -> s.promptTokens(1, List.of())).hasMessageContaining("earlier answers");
    assertThatThrownBy(() -> s.messages(2, List.of("a", "b")))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }
}
