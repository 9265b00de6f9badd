package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.routing.RequestAnalyzer.Analyzed;
import io.infera.router.routing.RequestAnalyzer.Endpoint;
import io.infera.router.tokenize.ResponsesChat;
import io.infera.router.tokenize.TestTokenizers;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Anthropic Messages and OpenAI Responses bodies render to the same tokens as the chat request
 * vLLM converts them to (so the same prefix hits the same cache); the pass-through endpoints are
 * validated and routed by load.
 */
class RequestAnalyzerApisTest {

  private static final RouterConfig CFG;

  static {
    try {
      CFG =
          ConfigLoader.parse(
              "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
                  + "discovery: {workers: [{id: w, url: 'http://x:1'}]}\n");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private final RequestAnalyzer analyzer = new RequestAnalyzer(CFG, TestTokenizers.qwen3(), null);

  private static final String SYSTEM =
      "You are a careful assistant for a shipping company. Answer questions about parcels, customs"
          + " forms and delivery windows; cite the policy section; never invent tracking numbers.";

  private RequestAnalyzer.Result analyze(String body, Endpoint endpoint) {
    return analyzer.analyze(body.getBytes(StandardCharsets.UTF_8), endpoint);
  }

  private Analyzed ok(String body, Endpoint endpoint) {
    RequestAnalyzer.Result r = analyze(body, endpoint);
    assertThat(r).as(body).isInstanceOf(RequestAnalyzer.Result.Ok.class);
    return ((RequestAnalyzer.Result.Ok) r).analyzed();
  }

  @Test
  void aMessagesRequestHashesAsItsEquivalentChatRequest() {
    String messages =
        "{\"model\":\"m\",\"max_tokens\":64,\"system\":[{\"type\":\"text\",\"text\":\""
            + SYSTEM
            + "\"}],\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Where is my parcel?\"}]},"
            + "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"track\",\"input\":{\"id\":\"A1\"}}]},"
            + "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"in transit\"}]}],"
            + "\"tools\":[{\"name\":\"track\",\"description\":\"Track a parcel\",\"input_schema\":{\"type\":\"object\"}}]}";
    String chat =
        "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\""
            + SYSTEM
            + "\"},{\"role\":\"user\",\"content\":\"Where is my parcel?\"},"
            + "{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"t1\",\"type\":\"function\",\"function\":{\"name\":\"track\",\"arguments\":\"{\\\"id\\\":\\\"A1\\\"}\"}}]},"
            + "{\"role\":\"tool\",\"tool_call_id\":\"t1\",\"content\":\"in transit\"}],"
            + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"track\",\"description\":\"Track a parcel\",\"parameters\":{\"type\":\"object\"}}}]}";
    Analyzed a = ok(messages, Endpoint.MESSAGES);
    Analyzed c = ok(chat, Endpoint.CHAT);
    assertThat(a.tokenizeFailure()).isNull();
    assertThat(a.tokens()).isPositive().isEqualTo(c.tokens());
    assertThat(a.hashes().base()).isNotEmpty().containsExactly(c.hashes().base());
    assertThat(a.chatRequest()).containsKey("messages");
    assertThat(a.body()).containsKey("system"); // the client's body is what is sent on
  }

  @Test
  void aResponsesRequestHashesAsItsEquivalentChatRequest() {
    Analyzed r =
        ok(
            "{\"model\":\"m\",\"instructions\":\""
                + SYSTEM
                + "\",\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"Customs form?\"}]}],\"stream\":true}",
            Endpoint.RESPONSES);
    Analyzed c =
        ok(
            "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\""
                + SYSTEM
                + "\"},{\"role\":\"user\",\"content\":\"Customs form?\"}]}",
            Endpoint.CHAT);
    assertThat(r.stream()).isTrue();
    assertThat(r.hashes().base()).isNotEmpty().containsExactly(c.hashes().base());
  }

  @Test
  void aResponsesRequestOnStoredHistoryIsRoutedByLoadWithItsReason() {
    RoutingMetrics metrics = new RoutingMetrics();
    RequestAnalyzer a = new RequestAnalyzer(CFG, TestTokenizers.qwen3(), metrics);
    Analyzed x =
        ((RequestAnalyzer.Result.Ok)
                a.analyze(
                    "{\"input\":\"and then?\",\"previous_response_id\":\"resp_1\"}"
                        .getBytes(StandardCharsets.UTF_8),
                    Endpoint.RESPONSES))
            .analyzed();
    assertThat(x.tokenizeFailure()).isEqualTo(ResponsesChat.STORED_CONTEXT);
    assertThat(x.hashes().isEmpty()).isTrue();
    assertThat(x.needsEngineTokens()).isFalse();
  }

  @ParameterizedTest
  @EnumSource(
      value = Endpoint.class,
      names = {"EMBEDDINGS", "TOKENIZE", "DETOKENIZE"})
  void passThroughBodiesAreRoutedByLoadWithoutAReason(Endpoint endpoint) {
    assertThat(endpoint.byLoad()).isTrue();
    Analyzed x = ok("{\"model\":\"m\",\"input\":\"hello\",\"tokens\":[1,2]}", endpoint);
    assertThat(x.hashes().isEmpty()).isTrue();
    assertThat(x.tokenizeFailure()).isNull();
    assertThat(x.prompt()).isNull();
    assertThat(x.needsEngineTokens()).isFalse();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '#',
      value = {
        "MESSAGES#{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}#BadRequest#'max_tokens' must be",
        "MESSAGES#{\"max_tokens\":0,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}#BadRequest#'max_tokens' must be",
        "MESSAGES#{\"max_tokens\":8,\"messages\":[]}#BadRequest#non-empty",
        "MESSAGES#{\"max_tokens\":8,\"model\":\"nope\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}#UnknownModel#`nope`",
        "MESSAGES#{\"max_tokens\":8,\"stream\":1,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}#BadRequest#'stream'",
        "RESPONSES#{\"model\":\"m\"}#BadRequest#'input' must be",
        "RESPONSES#{\"input\":[{\"role\":5}]}#BadRequest#role",
        "EMBEDDINGS#[1]#BadRequest#JSON object",
        "TOKENIZE#{\"model\":\"other\"}#UnknownModel#`other`",
        "DETOKENIZE#not json#BadRequest#not valid JSON"
      })
  void malformedBodiesAreClientErrors(Endpoint endpoint, String body, String type, String message) {
    RequestAnalyzer.Result r = analyze(body, endpoint);
    assertThat(r).isInstanceOf(RequestAnalyzer.Result.Failed.class);
    RoutingFailure f = ((RequestAnalyzer.Result.Failed) r).failure();
    assertThat(f.getClass().getSimpleName()).isEqualTo(type);
    assertThat(f.message()).contains(message);
  }

  @Test
  void endpointsKnowTheirPathsAndErrorShapes() {
    assertThat(Endpoint.forPath("/v1/messages")).contains(Endpoint.MESSAGES);
    assertThat(Endpoint.forPath("/v1/nope")).isEmpty();
    assertThat(Endpoint.MESSAGES.anthropicErrors()).isTrue();
    assertThat(Endpoint.RESPONSES.anthropicErrors()).isFalse();
    assertThat(Endpoint.RESPONSES.rendersChat()).isTrue();
    assertThat(Endpoint.COMPLETIONS.rendersChat()).isFalse();
  }
}
