package io.infera.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.json.Json;
import io.infera.router.tokenize.ChatInput;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.VllmChat;
import io.infera.sim.engine.RequestParser.Endpoint;
import io.infera.sim.engine.RequestParser.Parsed;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestParserTest {

  private static final String MODEL = "Qwen/Qwen3-0.6B";
  private static PromptTokenizer tok;
  private static RequestParser parser;

  @BeforeAll
  static void load() {
    tok = SharedTokenizer.qwen3();
    parser = new RequestParser(tok, MODEL, 1000);
  }

  private static final List<Object> MESSAGES =
      List.of(
          Map.of("role", "system", "content", "Be brief."),
          Map.of("role", "user", "content", List.of(Map.of("type", "text", "text", "Hi there"))));

  @Test
  void chatsAreRenderedAndEncodedLikeTheRouter() throws Exception {
    Parsed p = parser.parse(Endpoint.CHAT, body(Map.of("model", MODEL, "messages", MESSAGES)));
    int[] expected =
        tok.encodeChat(ChatInput.of(VllmChat.normalize(MESSAGES, tok.contentFormat()))).ids();
    assertThat(p.promptIds()).containsExactly(expected);
    assertThat(p.maxTokens()).isEqualTo(RequestParser.DEFAULT_MAX_TOKENS);
    assertThat(p.stream()).isFalse();
    assertThat(p.model()).isEqualTo(MODEL);
  }

  @Test
  void aDivergentTemplateRendersChatsDifferentlyInRequestsAndTokenizeAlike() throws Exception {
    RequestParser divergent = new RequestParser(tok, MODEL, 1000, "# other template\n");
    byte[] chat = body(Map.of("model", MODEL, "messages", MESSAGES));
    int[] routerIds = parser.parse(Endpoint.CHAT, chat).promptIds();
    int[] served = divergent.parse(Endpoint.CHAT, chat).promptIds();
    int[] tokenized = divergent.tokenize(chat);
    String rendered =
        "# other template\n"
            + tok.render(ChatInput.of(VllmChat.normalize(MESSAGES, tok.contentFormat())));
    assertThat(served).containsExactly(tok.encodeRendered(rendered));
    assertThat(tokenized).containsExactly(served);
    assertThat(served).isNotEqualTo(routerIds);
    assertThat(served[0]).isNotEqualTo(routerIds[0]); // the very first block differs
    // Plain prompts go through the tokenizer only: unchanged.
    byte[] text = body(Map.of("model", MODEL, "prompt", "hello world"));
    assertThat(divergent.tokenize(text)).containsExactly(parser.tokenize(text));
  }

  @Test
  void chatOptionsReachTheTemplate() throws Exception {
    Map<String, Object> req =
        Map.of(
            "messages",
            MESSAGES,
            "add_generation_prompt",
            false,
            "chat_template_kwargs",
            Map.of("enable_thinking", false));
    int[] ids = parser.parse(Endpoint.CHAT, body(req)).promptIds();
    ChatInput in =
        new ChatInput(
            VllmChat.normalize(MESSAGES, tok.contentFormat()),
            null,
            null,
            false,
            false,
            Map.of("enable_thinking", false));
    assertThat(ids).containsExactly(tok.encodeChat(in).ids());
  }

  @Test
  void completionPromptsTakeEveryShape() throws Exception {
    assertThat(
            parser.parse(Endpoint.COMPLETIONS, body(Map.of("prompt", "Hello world"))).promptIds())
        .containsExactly(tok.encodeText("Hello world").ids());
    assertThat(
            parser
                .parse(Endpoint.COMPLETIONS, body(Map.of("prompt", List.of(5, 6, 7))))
                .promptIds())
        .containsExactly(5, 6, 7);
    Parsed batch =
        parser.parse(Endpoint.COMPLETIONS, body(Map.of("prompt", List.of(List.of(9, 8), "x"))));
    assertThat(batch.promptIds()).containsExactly(9, 8);
    assertThat(batch.batchPrompts()).isEqualTo(2);
  }

  @Test
  void maxTokensAndStreamingOptions() throws Exception {
    Parsed p =
        parser.parse(
            Endpoint.CHAT,
            body(
                Map.of(
                    "messages",
                    MESSAGES,
                    "max_tokens",
                    5,
                    "max_completion_tokens",
                    7,
                    "stream",
                    true,
                    "stream_options",
                    Map.of("include_usage", true))));
    assertThat(p.maxTokens()).isEqualTo(7);
    assertThat(p.stream()).isTrue();
    assertThat(p.includeUsage()).isTrue();
    // Completions know only max_tokens.
    Parsed c =
        parser.parse(
            Endpoint.COMPLETIONS,
            body(Map.of("prompt", "a", "max_tokens", 5, "max_completion_tokens", 7)));
    assertThat(c.maxTokens()).isEqualTo(5);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"model\": |400|not valid JSON",
        "[1, 2]|400|must be a JSON object",
        "{\"model\": \"gpt-4\", \"prompt\": \"x\"}|404|The model `gpt-4` does not exist.",
        "{\"model\": 3, \"prompt\": \"x\"}|400|'model' must be a string",
        "{\"prompt\": \"x\", \"max_tokens\": 0}|400|max_tokens must be at least 1",
        "{\"prompt\": \"x\", \"max_tokens\": 2.5}|400|'max_tokens' must be an integer",
        "{\"prompt\": \"x\", \"stream\": \"yes\"}|400|'stream' must be a boolean",
        "{\"prompt\": \"x\", \"stream_options\": 1}|400|'stream_options' must be an object",
        "{\"prompt\": \"\"}|400|cannot be empty",
        "{\"prompt\": 7}|400|'prompt' must be",
        "{\"prompt\": [1, -2]}|400|non-negative",
        "{}|400|'prompt' must be",
        "{\"prompt\": \"x\", \"max_tokens\": 1000}|400|maximum context length is 1000 tokens"
      })
  void completionErrorsAreOpenAiShaped(String json, int status, String message) {
    assertThatThrownBy(
            () -> parser.parse(Endpoint.COMPLETIONS, json.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOfSatisfying(ApiError.class, e -> assertThat(e.status()).isEqualTo(status))
        .hasMessageContaining(message);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"messages\": []}|'messages' must be a non-empty array",
        "{\"messages\": [1]}|messages[0] is not an object",
        "{\"messages\": [{\"role\": \"user\", \"content\": 1}]}|content must be",
        "{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"tools\": 1}|'tools' must be",
        "{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"chat_template_kwargs\": 1}|"
            + "'chat_template_kwargs' must be"
      })
  void chatErrorsAreBadRequests(String json, String message) {
    assertThatThrownBy(() -> parser.parse(Endpoint.CHAT, json.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOfSatisfying(ApiError.class, e -> assertThat(e.status()).isEqualTo(400))
        .hasMessageContaining(message);
  }

  @Test
  void tokenizeFollowsVllmsSpecialTokenDefaults() throws Exception {
    assertThat(parser.tokenize(body(Map.of("messages", MESSAGES))))
        .containsExactly(
            tok.encodeChat(ChatInput.of(VllmChat.normalize(MESSAGES, tok.contentFormat()))).ids());
    assertThat(parser.tokenize(body(Map.of("prompt", "Hello"))))
        .containsExactly(tok.encodeText("Hello").ids());
    assertThat(parser.tokenize(body(Map.of("prompt", "Hello", "add_special_tokens", false))))
        .containsExactly(tok.encodeRendered("Hello"));
    assertThatThrownBy(() -> parser.tokenize(body(Map.of("model", MODEL))))
        .hasMessageContaining("'prompt' or 'messages'");
  }

  @Test
  void errorBodiesNestUnderError() {
    ApiError e = ApiError.notFound("nope");
    assertThat(Json.write(e.body()))
        .isEqualTo(
            "{\"error\":{\"message\":\"nope\",\"type\":\"NotFoundError\",\"param\":null,\"code\":404}}");
  }

  private static byte[] body(Map<String, Object> m) {
    return Json.write(m).getBytes(StandardCharsets.UTF_8);
  }
}
