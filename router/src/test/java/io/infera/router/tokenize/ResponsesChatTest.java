package io.infera.router.tokenize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.json.Json;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The Responses → chat conversion, as vLLM's Responses front end builds its messages. */
class ResponsesChatTest {

  @SuppressWarnings("unchecked")
  private static ResponsesChat.Outcome convert(String json) throws Exception {
    return ResponsesChat.toChatRequest((Map<String, Object>) Json.parse(json));
  }

  private static Map<String, Object> chat(String json) throws Exception {
    return ((ResponsesChat.Outcome.Chat) convert(json)).request();
  }

  @Test
  void instructionsAndAStringInputAreASystemAndAUserMessage() throws Exception {
    assertThat(Json.write(chat("{\"instructions\":\"Be terse.\",\"input\":\"hi\"}")))
        .isEqualTo(
            "{\"messages\":[{\"role\":\"system\",\"content\":\"Be terse.\"},{\"role\":\"user\",\"content\":\"hi\"}]}");
    assertThat(Json.write(chat("{\"instructions\":\"\",\"input\":\"hi\"}")))
        .isEqualTo("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
  }

  @Test
  void itemsBecomeMessagesWithCallsAndReasoningMergedIntoTheAssistantTurn() throws Exception {
    Map<String, Object> c =
        chat(
            "{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"weather?\"}]},"
                + "{\"type\":\"reasoning\",\"id\":\"rs\",\"summary\":[],\"content\":[{\"type\":\"reasoning_text\",\"text\":\"think\"}]},"
                + "{\"type\":\"message\",\"role\":\"assistant\",\"status\":\"completed\",\"content\":[{\"type\":\"output_text\",\"text\":\"Checking.\"}]},"
                + "{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"get\",\"arguments\":\"{\\\"city\\\":\\\"Oslo\\\"}\"},"
                + "{\"type\":\"function_call\",\"call_id\":\"c2\",\"name\":\"get\",\"arguments\":\"{}\"},"
                + "{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":\"rain\"}],"
                + "\"tools\":[{\"type\":\"function\",\"name\":\"get\",\"description\":\"d\",\"parameters\":{\"type\":\"object\"},\"strict\":false},"
                + "{\"type\":\"web_search\"}],\"reasoning\":{\"effort\":\"low\"}}");
    assertThat(Json.write(c.get("messages")))
        .isEqualTo(
            "[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"weather?\"}]},"
                + "{\"role\":\"assistant\",\"reasoning\":\"think\",\"content\":\"Checking.\",\"tool_calls\":["
                + "{\"id\":\"c1\",\"function\":{\"name\":\"get\",\"arguments\":\"{\\\"city\\\":\\\"Oslo\\\"}\"},\"type\":\"function\"},"
                + "{\"id\":\"c2\",\"function\":{\"name\":\"get\",\"arguments\":\"{}\"},\"type\":\"function\"}]},"
                + "{\"role\":\"tool\",\"content\":\"rain\",\"tool_call_id\":\"c1\"}]");
    assertThat(Json.write(c.get("tools")))
        .isEqualTo(
            "[{\"type\":\"function\",\"function\":{\"name\":\"get\",\"description\":\"d\",\"parameters\":{\"type\":\"object\"},\"strict\":false}}]");
    assertThat(c.get("chat_template_kwargs")).isEqualTo(Map.of("reasoning_effort", "low"));
  }

  @Test
  void aReasoningItemAfterAReasoningTurnStartsANewOneAndSummariesStandIn() throws Exception {
    assertThat(
            Json.write(
                chat("{\"input\":[{\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"s1\"}]},"
                        + "{\"type\":\"reasoning\",\"content\":[{\"text\":\"r2\"}]}]}")
                    .get("messages")))
        .isEqualTo(
            "[{\"role\":\"assistant\",\"reasoning\":\"s1\"},{\"role\":\"assistant\",\"reasoning\":\"r2\"}]");
  }

  @Test
  void anIncompleteFinalAssistantMessageIsContinued() throws Exception {
    Map<String, Object> c =
        chat(
            "{\"input\":[{\"role\":\"user\",\"content\":\"Write\"},{\"type\":\"message\",\"role\":\"assistant\","
                + "\"status\":\"incomplete\",\"content\":[{\"type\":\"output_text\",\"text\":\"Once\"}]}]}");
    assertThat(c).containsEntry("continue_final_message", true);
    assertThat(c).containsEntry("add_generation_prompt", false);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"input\":\"x\",\"previous_response_id\":\"resp_1\"}",
        "{\"input\":\"x\",\"previous_response\":{\"id\":\"resp_1\"}}",
        "{\"input\":\"x\",\"previous_input_messages\":[]}",
        "{\"input\":\"x\",\"conversation\":\"conv_1\"}"
      })
  void aRequestOnStoredHistoryIsRoutedByLoad(String json) throws Exception {
    assertThat(convert(json))
        .isEqualTo(new ResponsesChat.Outcome.ByLoad(ResponsesChat.STORED_CONTEXT));
  }

  @Test
  void anItemOfAnotherKindIsRoutedByLoad() throws Exception {
    assertThat(convert("{\"input\":[{\"type\":\"item_reference\",\"id\":\"msg_1\"}]}"))
        .isEqualTo(new ResponsesChat.Outcome.ByLoad(ResponsesChat.UNKNOWN_ITEM));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{}|'input' must be",
        "{\"input\":5}|'input' must be",
        "{\"input\":[3]}|input[0] is not an object",
        "{\"input\":\"x\",\"instructions\":1}|'instructions' must be a string",
        "{\"input\":\"x\",\"tools\":{}}|'tools' must be an array",
        "{\"input\":\"x\",\"tools\":[1]}|'tools' entries must be objects"
      })
  void malformedBodiesAreRefusedNamingTheField(String json, String message) {
    assertThatThrownBy(() -> convert(json))
        .isInstanceOf(VllmChat.InvalidMessage.class)
        .hasMessageContaining(message);
  }
}
