package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.routing.RequestAnalyzer.Analyzed;
import io.infera.router.routing.RequestAnalyzer.Endpoint;
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

/** The engine tokenizer's request body and its reading of {@code /tokenize} answers. */
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
        "{\"tokens\":[1,2]} trailing"
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
  void aChatRequestSendsItsTemplateFieldsWithoutSpecialTokens() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("model", "m");
    body.put("messages", List.of(Map.of("role", "user", "content", "hi")));
    body.put("tools", List.of());
    body.put("temperature", 0.5);
    body.put("chat_template_kwargs", Map.of("enable_thinking", false));
    Map<String, Object> req = EngineTokenizer.tokenizeRequest(analyzed(Endpoint.CHAT, body));
    assertThat(req.keySet())
        .containsExactly(
            "model", "messages", "tools", "chat_template_kwargs", "add_special_tokens");
    assertThat(req.get("add_special_tokens")).isEqualTo(false);
  }

  @Test
  void aCompletionSendsItsPromptWithSpecialTokens() {
    Map<String, Object> body = Map.of("model", "lora-a", "prompt", "hello", "max_tokens", 3);
    Map<String, Object> req = EngineTokenizer.tokenizeRequest(analyzed(Endpoint.COMPLETIONS, body));
    assertThat(req.keySet()).containsExactly("model", "prompt", "add_special_tokens");
    assertThat(req).containsEntry("model", "lora-a").containsEntry("prompt", "hello");
    assertThat(req.get("add_special_tokens")).isEqualTo(true);
  }

  private static Analyzed analyzed(Endpoint endpoint, Map<String, Object> body) {
    return new Analyzed(
        endpoint, body, (String) body.get("model"), false, null, new long[0], -1, 0L, 0L, null);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
