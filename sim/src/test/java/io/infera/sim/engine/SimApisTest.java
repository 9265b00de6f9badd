package io.infera.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.json.Json;
import io.infera.sim.engine.RequestParser.Endpoint;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The simulator's Messages and Responses endpoints: bodies tokenize as the chat requests they
 * convert to, and the answers are in the two APIs' formats.
 */
class SimApisTest {

  private static final String MODEL = "Qwen/Qwen3-0.6B";
  private final RequestParser parser = new RequestParser(SharedTokenizer.qwen3(), MODEL, 4000);

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void messagesAndResponsesTokenizeAsTheirChatEquivalents() throws Exception {
    int[] chat =
        parser
            .parse(
                Endpoint.CHAT,
                utf8(
                    "{\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":\"Hi\"}]}"))
            .promptIds();
    RequestParser.Parsed messages =
        parser.parse(
            Endpoint.MESSAGES,
            utf8(
                "{\"model\":\""
                    + MODEL
                    + "\",\"max_tokens\":7,\"stream\":true,\"system\":\"Be brief.\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hi\"}]}]}"));
    RequestParser.Parsed responses =
        parser.parse(
            Endpoint.RESPONSES,
            utf8("{\"instructions\":\"Be brief.\",\"input\":\"Hi\",\"max_output_tokens\":3}"));
    assertThat(messages.promptIds()).containsExactly(chat);
    assertThat(messages.maxTokens()).isEqualTo(7);
    assertThat(messages.stream()).isTrue();
    assertThat(responses.promptIds()).containsExactly(chat);
    assertThat(responses.maxTokens()).isEqualTo(3);
  }

  @Test
  void messagesNeedMaxTokensAndResponsesHaveNoStoredHistory() {
    assertThatThrownBy(
            () ->
                parser.parse(
                    Endpoint.MESSAGES,
                    utf8("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}")))
        .isInstanceOf(ApiError.class)
        .hasMessageContaining("max_tokens");
    assertThatThrownBy(
            () ->
                parser.parse(
                    Endpoint.RESPONSES,
                    utf8("{\"input\":\"x\",\"previous_response_id\":\"resp_1\"}")))
        .isInstanceOf(ApiError.class)
        .hasMessageContaining("stores no responses");
    Map<String, Object> body = ApiError.badRequest("bad", null).anthropicBody();
    assertThat(Json.write(body))
        .isEqualTo(
            "{\"type\":\"error\",\"error\":{\"type\":\"BadRequestError\",\"message\":\"bad\"}}");
  }

  private static List<String> events(String sse) {
    List<String> names = new ArrayList<>();
    for (String line : sse.split("\n")) {
      if (line.startsWith("event: ")) {
        names.add(line.substring(7));
      }
    }
    return names;
  }

  @Test
  void anthropicStreamsNameTheirEventsAndSplitCachedInput() throws Exception {
    var meta = new OpenAiFormat.Meta(Endpoint.MESSAGES, "msg_1", 1, MODEL);
    Map<String, Object> usage = AnthropicFormat.usage(100, 2, 64, true);
    String sse =
        AnthropicFormat.start(meta, 100)
            + AnthropicFormat.delta("a")
            + AnthropicFormat.delta("b")
            + AnthropicFormat.end("length", usage);
    assertThat(events(sse))
        .containsExactly(
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop");
    assertThat(sse).contains("\"stop_reason\":\"max_tokens\"");
    assertThat(usage)
        .containsEntry("input_tokens", 36)
        .containsEntry("cache_read_input_tokens", 64)
        .containsEntry("output_tokens", 2);
    Map<?, ?> whole = (Map<?, ?>) Json.parse(AnthropicFormat.message(meta, "ab", "stop", usage));
    assertThat(whole.get("type")).isEqualTo("message");
    assertThat(whole.get("stop_reason")).isEqualTo("end_turn");
    assertThat(AnthropicFormat.usage(100, 2, 64, false))
        .containsOnlyKeys("input_tokens", "output_tokens");
  }

  @Test
  void responsesStreamsAreTypedAndNumbered() throws Exception {
    var meta = new OpenAiFormat.Meta(Endpoint.RESPONSES, "resp_abc", 1, MODEL);
    ResponsesFormat f = new ResponsesFormat(meta, 4);
    String sse =
        f.start() + f.delta("a") + f.end("a", "stop", ResponsesFormat.usage(10, 1, 0, true));
    assertThat(events(sse))
        .containsExactly(
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.completed");
    List<Long> numbers = new ArrayList<>();
    for (String line : sse.split("\n")) {
      if (line.startsWith("data: ")) {
        numbers.add((Long) ((Map<?, ?>) Json.parse(line.substring(6))).get("sequence_number"));
      }
    }
    assertThat(numbers).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
    Map<?, ?> cut =
        (Map<?, ?>) Json.parse(new ResponsesFormat(meta, 4).whole("abcd", "length", Map.of()));
    assertThat(cut.get("status")).isEqualTo("incomplete");
    assertThat(cut.get("incomplete_details")).isEqualTo(Map.of("reason", "max_output_tokens"));
  }
}
