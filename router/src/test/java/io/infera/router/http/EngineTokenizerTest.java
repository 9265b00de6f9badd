package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.json.Json;
import io.infera.router.routing.RequestAnalyzer.Analyzed;
import io.infera.router.routing.RequestAnalyzer.Endpoint;
import io.infera.router.tokenize.Prompt;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The engine tokenizer's request bodies (vLLM 0.33.0 {@code TokenizeCompletionRequest} / {@code
 * TokenizeChatRequest}, SGLang 0.5.23 {@code TokenizeRequest}) and its reading of {@code /tokenize}
 * answers.
 */
class EngineTokenizerTest {

  @Test
  void readsTheTokensOfAnAnswer() {
    assertThat(
            EngineTokenizer.tokenIds(
                utf8("{\"count\":3,\"tokens\":[1,2,300],\"max_model_len\":9}")))
        .containsExactly(1, 2, 300);
    assertThat(EngineTokenizer.tokenIds(utf8("{\"tokens\":[]}"))).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "{",
        "[1,2]",
        "null",
        "{}",
        "{\"tokens\":null}",
        "{\"tokens\":\"1 2\"}",
        "{\"tokens\":[1,null]}",
        "{\"tokens\":[1,\"2\"]}",
        "{\"tokens\":[[1]]}",
        "{\"tokens\":[1,2]} trailing",
        "{\"tokens\":[1.5]}",
        "{\"tokens\":[1e300]}",
        "{\"tokens\":[-1]}",
        "{\"tokens\":[2147483648]}",
        "{\"tokens\":[99999999999999999999999]}",
        "{\"tokens\":[true]}"
      })
  void aBadAnswerIsAnIllegalStateNeverAnotherException(String answer) {
    assertThatThrownBy(() -> EngineTokenizer.tokenIds(utf8(answer)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("/tokenize answer");
  }

  @Property(tries = 2000)
  void anyBytesGiveTokensOrAnIllegalState(@ForAll("answers") byte[] answer) {
    try {
      EngineTokenizer.tokenIds(answer);
    } catch (IllegalStateException expected) {
      assertThat(expected.getMessage()).contains("/tokenize answer");
    }
  }

  @Provide
  Arbitrary<byte[]> answers() {
    return Arbitraries.oneOf(
        Arbitraries.bytes().array(byte[].class).ofMaxSize(48),
        Arbitraries.strings()
            .withChars("{}[]\":,0123456789.eE-+nulltrue tokens")
            .ofMaxLength(60)
            .map(EngineTokenizerTest::utf8));
  }

  @Test
  void theLargestTokenIdIsRead() {
    assertThat(EngineTokenizer.tokenIds(utf8("{\"tokens\":[0,2147483647]}")))
        .containsExactly(0, Integer.MAX_VALUE);
  }

  @Test
  void aVllmChatRequestSendsItsTemplateFieldsWithoutSpecialTokens() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("model", "m");
    body.put("messages", List.of(Map.of("role", "user", "content", "hi")));
    body.put("tools", List.of());
    body.put("temperature", 0.5);
    body.put("stream", true);
    body.put("chat_template_kwargs", Map.of("enable_thinking", false));
    Map<String, Object> req = EngineTokenizer.tokenizeRequest(chat(body), "vllm");
    assertThat(req.keySet())
        .containsExactly(
            "model", "messages", "tools", "chat_template_kwargs", "add_special_tokens");
    assertThat(req.get("add_special_tokens")).isEqualTo(false);
    assertThat(req.get("chat_template_kwargs")).isEqualTo(Map.of("enable_thinking", false));
    // Any engine but SGLang gets vLLM's form (the API the docs name).
    assertThat(EngineTokenizer.tokenizeRequest(chat(body), "other")).isEqualTo(req);
  }

  @Test
  void vllmChatFieldsThatTokenizeLacksReachTheTemplateAsKwargs() {
    // vLLM 0.33.0's chat completion merges documents and reasoning_effort (and enable_thinking
    // derived from it) over chat_template_kwargs; its /tokenize takes only the kwargs.
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("messages", List.of(Map.of("role", "user", "content", "hi")));
    body.put("documents", List.of(Map.of("title", "t", "text", "x")));
    body.put("reasoning_effort", "low");
    body.put("chat_template_kwargs", Map.of("documents", "overridden", "k", 1L));
    body.put("add_special_tokens", true);
    body.put("continue_final_message", true);
    body.put("add_generation_prompt", false);
    Map<String, Object> req = EngineTokenizer.tokenizeRequest(chat(body), "vllm");
    assertThat(req)
        .doesNotContainKeys("documents", "reasoning_effort")
        .containsEntry("add_special_tokens", true)
        .containsEntry("continue_final_message", true)
        .containsEntry("add_generation_prompt", false);
    assertThat(kwargs(req))
        .containsEntry("documents", List.of(Map.of("title", "t", "text", "x")))
        .containsEntry("reasoning_effort", "low")
        .containsEntry("enable_thinking", true)
        .containsEntry("k", 1L);
    // The client's enable_thinking wins; "none" turns thinking off; "auto" is unset.
    body.put("chat_template_kwargs", Map.of("enable_thinking", false));
    assertThat(kwargs(EngineTokenizer.tokenizeRequest(chat(body), "vllm")))
        .containsEntry("enable_thinking", false);
    body.remove("chat_template_kwargs");
    body.put("reasoning_effort", "none");
    assertThat(kwargs(EngineTokenizer.tokenizeRequest(chat(body), "vllm")))
        .containsEntry("enable_thinking", false)
        .containsEntry("reasoning_effort", "none");
    body.put("reasoning_effort", "auto");
    assertThat(kwargs(EngineTokenizer.tokenizeRequest(chat(body), "vllm")))
        .containsEntry("enable_thinking", true)
        .doesNotContainKey("reasoning_effort");
  }

  @Test
  void anSglangChatRequestGoesAsItCameLessTheFormatAndStreamFields() {
    // SGLang 0.5.23: messages without add_generation_prompt render as for a chat completion;
    // add_generation_prompt would switch to its raw mode (refused with non-Jinja templates).
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("model", "m");
    body.put("messages", List.of(Map.of("role", "user", "content", "hi")));
    body.put("tools", List.of(Map.of("type", "function")));
    body.put("tool_choice", "auto");
    body.put("reasoning_effort", "high");
    body.put("chat_template_kwargs", Map.of("enable_thinking", false));
    body.put("add_generation_prompt", true);
    body.put("add_special_tokens", true);
    body.put("stream", true);
    body.put("stream_options", Map.of("include_usage", true));
    Map<String, Object> req = EngineTokenizer.tokenizeRequest(chat(body), "sglang");
    assertThat(req.keySet())
        .containsExactlyInAnyOrder(
            "model",
            "messages",
            "tools",
            "tool_choice",
            "reasoning_effort",
            "chat_template_kwargs");
    assertThat(req).doesNotContainKey("prompt");
  }

  @ParameterizedTest
  @ValueSource(strings = {"vllm", "sglang"})
  void aCompletionSendsItsPromptAsOneStringWithSpecialTokens(String engine) {
    Map<String, Object> body = Map.of("model", "lora-a", "prompt", "hello", "max_tokens", 3);
    Map<String, Object> req =
        EngineTokenizer.tokenizeRequest(
            analyzed(Endpoint.COMPLETIONS, body, new Prompt.Text("hello")), engine);
    assertThat(req.keySet()).containsExactly("model", "prompt", "add_special_tokens");
    assertThat(req).containsEntry("model", "lora-a").containsEntry("prompt", "hello");
    assertThat(req.get("add_special_tokens")).isEqualTo(true);
    // A one-element list prompt: vLLM's TokenizeCompletionRequest.prompt is a str.
    Map<String, Object> listed = Map.of("model", "m", "prompt", List.of("hello"));
    assertThat(
            EngineTokenizer.tokenizeRequest(
                    analyzed(Endpoint.COMPLETIONS, listed, new Prompt.Text("hello")), engine)
                .get("prompt"))
        .isEqualTo("hello");
  }

  @Test
  void theAnswerLimitGrowsWithTheBodyLimitAndNeverOverflows() {
    assertThat(EngineTokenizer.maxAnswerBytes(1000)).isEqualTo(12_000 + (1 << 20));
    assertThat(EngineTokenizer.maxAnswerBytes(Long.MAX_VALUE / 16)).isPositive();
  }

  @Test
  @SuppressWarnings("unchecked")
  void aMessagesRequestIsTokenizedAsTheChatRequestItConvertsTo() throws Exception {
    Map<String, Object> body =
        (Map<String, Object>)
            Json.parse(
                "{\"model\":\"m\",\"max_tokens\":4,\"system\":\"S\",\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}");
    Map<String, Object> converted =
        io.infera.router.tokenize.AnthropicChat.toChatRequest(
            body, io.infera.router.tokenize.AnthropicChat.InlineSystem.PRESERVE);
    Analyzed a =
        new Analyzed(
            Endpoint.MESSAGES,
            body,
            "m",
            false,
            null,
            io.infera.router.kv.RequestHashes.empty(),
            -1,
            0L,
            0L,
            null,
            null,
            null,
            converted);
    Map<String, Object> vllm = EngineTokenizer.tokenizeRequest(a, "vllm");
    assertThat(Json.write(vllm.get("messages")))
        .isEqualTo(
            "[{\"role\":\"system\",\"content\":\"S\"},{\"role\":\"user\",\"content\":\"q\"}]");
    assertThat(vllm).doesNotContainKeys("system", "max_tokens");
    assertThat(vllm).containsEntry("add_special_tokens", false);
    Map<String, Object> sglang = EngineTokenizer.tokenizeRequest(a, "sglang");
    assertThat(sglang).containsKey("messages").doesNotContainKey("system");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> kwargs(Map<String, Object> req) {
    return (Map<String, Object>) req.get("chat_template_kwargs");
  }

  private static Analyzed chat(Map<String, Object> body) {
    return analyzed(Endpoint.CHAT, body, null);
  }

  private static Analyzed analyzed(Endpoint endpoint, Map<String, Object> body, Prompt prompt) {
    return new Analyzed(
        endpoint,
        body,
        body.get("model") instanceof String m ? m : "m",
        false,
        prompt,
        new long[0],
        -1,
        0L,
        0L,
        null);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
