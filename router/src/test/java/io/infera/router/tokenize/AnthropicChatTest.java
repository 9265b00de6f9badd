package io.infera.router.tokenize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.json.Json;
import io.infera.router.tokenize.AnthropicChat.InlineSystem;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Anthropic → OpenAI chat conversion, case by case as vLLM's own front end converts (the cases
 * of its conversion tests, restated as ours).
 */
class AnthropicChatTest {

  @SuppressWarnings("unchecked")
  private static Map<String, Object> body(String json) throws Exception {
    return (Map<String, Object>) Json.parse(json);
  }

  private static Map<String, Object> convert(String json) throws Exception {
    return AnthropicChat.toChatRequest(body(json), InlineSystem.PRESERVE);
  }

  private static String messages(String json) throws Exception {
    return Json.write(convert(json).get("messages"));
  }

  @Test
  void systemStringAndTextBlocksBecomeOneLeadingSystemMessageWithoutTheBillingHeader()
      throws Exception {
    assertThat(
            messages(
                "{\"system\":\"Be terse.\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
        .isEqualTo(
            "[{\"role\":\"system\",\"content\":\"Be terse.\"},{\"role\":\"user\",\"content\":\"hi\"}]");
    assertThat(
            messages(
                "{\"system\":[{\"type\":\"text\",\"text\":\"x-anthropic-billing-header: cc_version=2;\"},"
                    + "{\"type\":\"text\",\"text\":\"You are helpful.\"},{\"type\":\"text\",\"text\":\" Be concise.\"}],"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
        .startsWith("[{\"role\":\"system\",\"content\":\"You are helpful. Be concise.\"}");
    assertThat(messages("{\"system\":\"\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
        .isEqualTo("[{\"role\":\"user\",\"content\":\"hi\"}]");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"AAAA\"}|data:image/png;base64,AAAA",
        "{\"type\":\"url\",\"url\":\"https://example.com/cat.png\"}|https://example.com/cat.png",
        "{\"media_type\":\"image/webp\",\"data\":\"UklGR\"}|data:image/webp;base64,UklGR",
        "{\"type\":\"base64\",\"data\":\"abc\"}|data:image/jpeg;base64,abc",
        "{\"type\":\"url\"}|''"
      })
  void imageSourcesBecomeUrls(String source, String url) throws Exception {
    assertThat(AnthropicChat.imageUrl((Map<?, ?>) Json.parse(source))).isEqualTo(url);
  }

  @Test
  void contentBlocksBecomePartsAndALoneTextPartAString() throws Exception {
    assertThat(
            messages(
                "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Describe\"},"
                    + "{\"type\":\"image\",\"source\":{\"type\":\"url\",\"url\":\"https://e/x.png\"}},"
                    + "{\"type\":\"text\",\"text\":\"\"},{\"type\":\"document\",\"source\":{}}]},"
                    + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"only\",\"cache_control\":{\"type\":\"ephemeral\"}}]}]}"))
        .isEqualTo(
            "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Describe\"},"
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://e/x.png\"}}]},"
                + "{\"role\":\"user\",\"content\":\"only\"}]");
  }

  @Test
  void thinkingBecomesReasoningAndRedactedThinkingIsIgnored() throws Exception {
    assertThat(
            messages(
                "{\"messages\":[{\"role\":\"user\",\"content\":\"q\"},{\"role\":\"assistant\",\"content\":["
                    + "{\"type\":\"thinking\",\"thinking\":\"First. \",\"signature\":\"s1\"},"
                    + "{\"type\":\"redacted_thinking\",\"data\":\"opaque\"},"
                    + "{\"type\":\"thinking\",\"thinking\":\"Second.\",\"signature\":\"s2\"},"
                    + "{\"type\":\"text\",\"text\":\"Done.\"}]},"
                    + "{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"only\"}]}]}"))
        .isEqualTo(
            "[{\"role\":\"user\",\"content\":\"q\"},"
                + "{\"role\":\"assistant\",\"reasoning\":\"First. Second.\",\"content\":\"Done.\"},"
                + "{\"role\":\"assistant\",\"reasoning\":\"only\"}]");
  }

  @Test
  void toolUseBecomesAToolCallAndAUsersToolResultAToolMessage() throws Exception {
    assertThat(
            messages(
                "{\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"call_1\","
                    + "\"name\":\"read\",\"input\":{\"path\":\"/tmp/a\"}}]},"
                    + "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"call_1\","
                    + "\"content\":[{\"type\":\"text\",\"text\":\"line 1\"},{\"type\":\"text\",\"text\":\"line 2\"},"
                    + "{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"IMG\"}},"
                    + "{\"type\":\"tool_reference\",\"tool_name\":\"grep\"}]},"
                    + "{\"type\":\"text\",\"text\":\"and now?\"}]}]}"))
        .isEqualTo(
            "[{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
                + "\"function\":{\"name\":\"read\",\"arguments\":\"{\\\"path\\\":\\\"/tmp/a\\\"}\"}}]},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"line 1\\nline 2\"},"
                + "{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,IMG\"}}]},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":[{\"type\":\"tool_reference\",\"name\":\"grep\"}]},"
                + "{\"role\":\"user\",\"content\":\"and now?\"}]");
  }

  @Test
  void aUserTurnOfOnlyToolResultsLeavesNoUserMessage() throws Exception {
    assertThat(
            messages(
                "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"c\","
                    + "\"content\":\"42\"},{\"type\":\"tool_result\",\"tool_use_id\":\"d\"}]}]}"))
        .isEqualTo(
            "[{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"42\"},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"d\",\"content\":\"\"}]");
  }

  @Test
  void anAssistantsToolResultIsRenderedAsPythonText() throws Exception {
    assertThat(
            messages(
                "{\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"c\","
                    + "\"content\":[{\"type\":\"text\",\"text\":\"it's\",\"ok\":true,\"n\":null}]}]}]}"))
        .isEqualTo(
            "[{\"role\":\"assistant\",\"content\":\"Tool result: [{'type': 'text', 'text': \\\"it's\\\","
                + " 'ok': True, 'n': None}]\"}]");
  }

  @Test
  void toolsBecomeFunctionToolsAndKwargsPassThrough() throws Exception {
    Map<String, Object> chat =
        convert(
            "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"chat_template_kwargs\":{\"enable_thinking\":false},"
                + "\"tools\":[{\"name\":\"get\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\"}},{\"name\":\"bare\"}]}");
    assertThat(Json.write(chat.get("tools")))
        .isEqualTo(
            "[{\"type\":\"function\",\"function\":{\"name\":\"get\",\"description\":\"d\",\"parameters\":{\"type\":\"object\"}}},"
                + "{\"type\":\"function\",\"function\":{\"name\":\"bare\"}}]");
    assertThat(chat.get("chat_template_kwargs")).isEqualTo(Map.of("enable_thinking", false));
  }

  @Test
  void inlineSystemMessagesStayInPlaceWhenThereIsASystemPrompt() throws Exception {
    // Leading ones join the system prompt; later ones stay as system turns.
    assertThat(
            messages(
                "{\"system\":\"Top.\",\"messages\":[{\"role\":\"system\",\"content\":\"Lead.\"},"
                    + "{\"role\":\"user\",\"content\":\"help?\"},{\"role\":\"system\",\"content\":\"Note.\"}]}"))
        .isEqualTo(
            "[{\"role\":\"system\",\"content\":\"Top.\\n\\nLead.\"},{\"role\":\"user\",\"content\":\"help?\"},"
                + "{\"role\":\"system\",\"content\":\"Note.\"}]");
  }

  @Test
  void inlineSystemMessagesFoldIntoTheUserTurnWithoutASystemPrompt() throws Exception {
    assertThat(
            messages(
                "{\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"},{\"role\":\"system\",\"content\":\"Be concise.\"}]}"))
        .isEqualTo("[{\"role\":\"user\",\"content\":\"Hello\\n\\nBe concise.\"}]");
    // After an assistant turn the text waits for the next user turn and goes first in it.
    assertThat(
            messages(
                "{\"messages\":[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"assistant\",\"content\":\"b\"},"
                    + "{\"role\":\"system\",\"content\":\"Mind.\"},{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"c\"}]}]}"))
        .isEqualTo(
            "[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"assistant\",\"content\":\"b\"},"
                + "{\"role\":\"user\",\"content\":\"Mind.\\n\\nc\"}]");
    // Trailing after an assistant: a user turn of its own.
    assertThat(
            messages(
                "{\"messages\":[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"assistant\",\"content\":\"b\"},"
                    + "{\"role\":\"system\",\"content\":\"Mind.\"}]}"))
        .endsWith("{\"role\":\"user\",\"content\":\"Mind.\"}]");
  }

  @Test
  void foldModeFoldsEvenWithASystemPromptAndToolResultsTakeTheText() throws Exception {
    Map<String, Object> chat =
        AnthropicChat.toChatRequest(
            body(
                "{\"system\":\"Top.\",\"messages\":[{\"role\":\"user\",\"content\":\"q\"},"
                    + "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"c\",\"name\":\"f\",\"input\":{}}]},"
                    + "{\"role\":\"system\",\"content\":\"Waiting.\"},"
                    + "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"c\",\"content\":\"out\"}]}]}"),
            InlineSystem.FOLD);
    // The system message between the tool_use and its result moves after the result and is
    // folded into it.
    assertThat(Json.write(chat.get("messages")))
        .isEqualTo(
            "[{\"role\":\"system\",\"content\":\"Top.\"},{\"role\":\"user\",\"content\":\"q\"},"
                + "{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"out\\n\\nWaiting.\"}]");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{}|'messages' must be a non-empty array",
        "{\"messages\":[]}|non-empty",
        "{\"messages\":[1]}|messages[0] is not an object",
        "{\"messages\":[{\"role\":\"tool\",\"content\":\"x\"}]}|role must be",
        "{\"messages\":[{\"role\":\"user\"}]}|content must be",
        "{\"messages\":[{\"role\":\"user\",\"content\":[\"x\"]}]}|content blocks must be objects",
        "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"x\"}]}]}|with a 'type'",
        "{\"system\":5,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}|'system' must be",
        "{\"system\":[5],\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}|'system' blocks",
        "{\"tools\":{},\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}|'tools' must be an array",
        "{\"tools\":[{}],\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}|with a 'name'",
        "{\"chat_template_kwargs\":1,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}|chat_template_kwargs"
      })
  void malformedBodiesAreRefusedNamingTheField(String json, String message) {
    assertThatThrownBy(() -> convert(json))
        .isInstanceOf(VllmChat.InvalidMessage.class)
        .hasMessageContaining(message);
  }

  @Test
  void theInputIsNotChanged() throws Exception {
    String json =
        "{\"system\":\"T\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"c\","
            + "\"content\":[{\"type\":\"text\",\"text\":\"r\"}]}]},{\"role\":\"system\",\"content\":\"S\"}]}";
    Map<String, Object> b = body(json);
    AnthropicChat.toChatRequest(b, InlineSystem.FOLD);
    AnthropicChat.toChatRequest(b, InlineSystem.PRESERVE);
    assertThat(Json.write(b)).isEqualTo(Json.write(body(json)));
    assertThat(List.of(InlineSystem.values())).hasSize(2);
  }
}
