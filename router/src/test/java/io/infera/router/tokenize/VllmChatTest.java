package io.infera.router.tokenize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.jinja.ChatGoldens;
import io.infera.router.json.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class VllmChatTest {

  @SuppressWarnings("unchecked")
  private static List<Object> msgs(String json) throws Exception {
    return (List<Object>) Json.parse(json);
  }

  @Test
  void stringFormatJoinsTextPartsAndKeepsOnlyKnownKeys() throws Exception {
    List<Object> out =
        VllmChat.normalize(
            msgs(
                "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
                    + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"x\"}},{\"type\":\"text\",\"text\":\"b\"}],"
                    + "\"extra\":1,\"name\":\"bob\"},"
                    + "{\"role\":\"assistant\",\"content\":null,\"reasoning_content\":\"think\"}]"),
            ContentFormat.STRING);
    assertThat(Json.write(out))
        .isEqualTo(
            "[{\"role\":\"user\",\"content\":\"a\\nb\",\"name\":\"bob\"},"
                + "{\"role\":\"assistant\",\"content\":\"\",\"reasoning\":\"think\",\"reasoning_content\":\"think\"}]");
  }

  @Test
  void openaiFormatWrapsStringsAsTextParts() throws Exception {
    List<Object> out =
        VllmChat.normalize(msgs("[{\"role\":\"user\",\"content\":\"hi\"}]"), ContentFormat.OPENAI);
    assertThat(Json.write(out))
        .isEqualTo("[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}]");
  }

  @Test
  void toolCallArgumentsGivenAsJsonStringsBecomeObjects() throws Exception {
    List<Object> out =
        VllmChat.normalize(
            msgs(
                "[{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
                    + "\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"x\\\": 1.0}\"}},"
                    + "{\"id\":\"c2\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"\"}}]},"
                    + "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"ok\"}]"),
            ContentFormat.STRING);
    assertThat(Json.write(out))
        .contains("\"arguments\":{\"x\":1.0}")
        .contains("\"arguments\":{}")
        .contains("\"tool_call_id\":\"c1\"");
  }

  @Test
  void malformedMessagesAreRejectedWithAReason() throws Exception {
    assertThatThrownBy(() -> VllmChat.normalize(List.of("hi"), ContentFormat.STRING))
        .hasMessageContaining("messages[0] is not an object");
    assertThatThrownBy(
            () -> VllmChat.normalize(List.of(Map.of("content", "x")), ContentFormat.STRING))
        .hasMessageContaining("messages[0].role");
    assertThatThrownBy(
            () ->
                VllmChat.normalize(
                    List.of(Map.of("role", "user", "content", 5)), ContentFormat.STRING))
        .hasMessageContaining("content must be");
    // vLLM coerces arguments that are not JSON to {} rather than failing the conversation
    assertThat(
            Json.write(
                VllmChat.normalize(
                    msgs(
                        "[{\"role\":\"assistant\",\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":\"{bad\"}}]}]"),
                    ContentFormat.STRING)))
        .contains("\"arguments\":{}");
  }

  @Test
  void contentFormatIsDetectedFromTheTemplate() {
    assertThat(ContentFormat.detect(ChatGoldens.templateSource("gemma3")))
        .isEqualTo(ContentFormat.OPENAI);
    assertThat(ContentFormat.detect(ChatGoldens.templateSource("qwen3")))
        .isEqualTo(ContentFormat.STRING);
    assertThat(ContentFormat.detect(ChatGoldens.templateSource("llama3")))
        .isEqualTo(ContentFormat.STRING);
    assertThat(ContentFormat.detect("{% for part in message.content %}{% endfor %}"))
        .isEqualTo(ContentFormat.OPENAI);
  }

  static List<ChatGoldens.Case> goldenRequests() {
    return ChatGoldens.cases().stream().filter(c -> c.requestMessages() != null).toList();
  }

  @Test
  void theGoldenCorpusHasRequestsForEveryRealTemplate() {
    assertThat(goldenRequests()).hasSizeGreaterThan(1000);
    assertThat(goldenRequests().stream().map(ChatGoldens.Case::contentFormat).distinct())
        .containsExactlyInAnyOrder("string", "openai");
  }

  /** make_goldens.py ran vLLM 0.33.0's own normalization on the same request (see its README). */
  @ParameterizedTest(name = "{0}")
  @MethodSource("goldenRequests")
  void normalizesEachGoldenRequestAsVllmDoes(ChatGoldens.Case c) throws Exception {
    ContentFormat format = ContentFormat.detect(ChatGoldens.templateSource(c.template()));
    assertThat(format.name().toLowerCase()).as("content format").isEqualTo(c.contentFormat());
    assertThat(Json.write(VllmChat.normalize(c.requestMessages(), format)))
        .isEqualTo(Json.write(c.messages()));
  }
}
