package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.json.Json;
import io.infera.router.tokenize.TestTokenizers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The tokenization budget in the analyzer: a prompt just under {@code limits.tokenizeMaxChars} is
 * tokenized, one just over is routed by load with a counted reason, before any rendering.
 */
class RequestAnalyzerBudgetTest {

  private static final int LIMIT = 1000;

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final RoutingMetrics metrics = new RoutingMetrics();
  private final RequestAnalyzer analyzer;

  RequestAnalyzerBudgetTest() throws Exception {
    RouterConfig cfg =
        ConfigLoader.parse(
            "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
                + "discovery: {workers: [{id: w, url: 'http://x:1'}]}\n"
                + "limits: {tokenizeMaxChars: "
                + LIMIT
                + "}\n");
    metrics.bindTo(registry);
    analyzer = new RequestAnalyzer(cfg, TestTokenizers.qwen3(), metrics);
  }

  private static String words(int chars) {
    return "hello world ".repeat(chars / 12 + 1).substring(0, chars);
  }

  private RequestAnalyzer.Analyzed completion(String prompt) {
    byte[] body = Json.write(Map.of("prompt", prompt)).getBytes(StandardCharsets.UTF_8);
    return ok(analyzer.analyze(body, RequestAnalyzer.Endpoint.COMPLETIONS));
  }

  private RequestAnalyzer.Analyzed chat(String content, String template) {
    Map<String, Object> body =
        template == null
            ? Map.of("messages", List.of(Map.of("role", "user", "content", content)))
            : Map.of(
                "messages",
                List.of(Map.of("role", "user", "content", content)),
                "chat_template",
                template);
    return ok(
        analyzer.analyze(
            Json.write(body).getBytes(StandardCharsets.UTF_8), RequestAnalyzer.Endpoint.CHAT));
  }

  private static RequestAnalyzer.Analyzed ok(RequestAnalyzer.Result r) {
    assertThat(r).isInstanceOf(RequestAnalyzer.Result.Ok.class);
    return ((RequestAnalyzer.Result.Ok) r).analyzed();
  }

  private double failures(String reason) {
    var c = registry.find("infera.tokenize.failures").tag("reason", reason).counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void aPromptJustUnderTheBudgetIsTokenizedAndOneJustOverIsRoutedByLoad() {
    RequestAnalyzer.Analyzed at = completion(words(LIMIT));
    assertThat(at.tokenizeFailure()).isNull();
    assertThat(at.tokens()).isPositive();
    assertThat(at.hashes().isEmpty()).isFalse();
    assertThat(failures("too_long")).isZero();

    RequestAnalyzer.Analyzed over = completion(words(LIMIT + 1));
    assertThat(over.tokenizeFailure()).isEqualTo("too_long");
    assertThat(over.tokens()).isEqualTo(-1);
    assertThat(over.hashes().isEmpty()).isTrue();
    // routed by load; not sent to an engine's /tokenize either
    assertThat(over.needsEngineTokens()).isFalse();
    assertThat(failures("too_long")).isEqualTo(1);
  }

  @Test
  void aChatOverTheBudgetIsNotEvenRendered() {
    // a template that fails when rendered: reason 'template' would mean it ran
    String raising = "{{ raise_exception('rendered') }}";
    // the role's "user" counts too: 4 + 996 = the limit
    assertThat(chat(words(LIMIT - 4), raising).tokenizeFailure()).isEqualTo("template");
    assertThat(chat(words(LIMIT - 3), raising).tokenizeFailure()).isEqualTo("too_long");
    assertThat(chat(words(LIMIT / 2), null).tokenizeFailure()).isNull();
  }

  @Test
  void aWordTooLongToCutIsRoutedByLoadWithItsOwnReason() throws Exception {
    RouterConfig cfg =
        ConfigLoader.parse(
            "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
                + "discovery: {workers: [{id: w, url: 'http://x:1'}]}\n");
    try (var t =
        io.infera.router.tokenize.PromptTokenizer.load(
            new io.infera.router.tokenize.TokenizerSource.Builtin("qwen3"),
            io.infera.router.tokenize.PromptTokenizer.Options.defaults()
                .withBudget(10_000, 2000))) {
      RequestAnalyzer a = new RequestAnalyzer(cfg, t, metrics);
      byte[] body = Json.write(Map.of("prompt", "a".repeat(2001))).getBytes(StandardCharsets.UTF_8);
      RequestAnalyzer.Analyzed x = ok(a.analyze(body, RequestAnalyzer.Endpoint.COMPLETIONS));
      assertThat(x.tokenizeFailure()).isEqualTo("unsplittable");
      assertThat(failures("unsplittable")).isEqualTo(1);
      body = Json.write(Map.of("prompt", "a".repeat(2000))).getBytes(StandardCharsets.UTF_8);
      assertThat(ok(a.analyze(body, RequestAnalyzer.Endpoint.COMPLETIONS)).tokens()).isPositive();
    }
  }

  @Test
  void aClientThatLeavesStopsTheAnalysisBeforeTokenizing() {
    byte[] body = Json.write(Map.of("prompt", words(500))).getBytes(StandardCharsets.UTF_8);
    AtomicInteger asked = new AtomicInteger();
    // present at the first check (after parsing), gone at the next (before tokenizing)
    RequestAnalyzer.Result r =
        analyzer.analyze(
            body, RequestAnalyzer.Endpoint.COMPLETIONS, () -> asked.incrementAndGet() > 1);
    assertThat(r).isInstanceOf(RequestAnalyzer.Result.Failed.class);
    assertThat(((RequestAnalyzer.Result.Failed) r).failure())
        .isInstanceOf(RoutingFailure.ClientGone.class);
    assertThat(asked).hasValue(2);
    assertThat(registry.find("infera.tokenize").timer().count()).isZero();
  }

  @Test
  void promptCharsCountsEveryStringOfAChatAndStopsPastTheCap() {
    var chat =
        new io.infera.router.tokenize.Prompt.Chat(
            new io.infera.router.tokenize.ChatInput(
                List.of(
                    Map.of("role", "user", "content", "abc"),
                    Map.of(
                        "role",
                        "user",
                        "content",
                        List.of(Map.of("type", "text", "text", "defg")))),
                List.of(Map.of("name", "fn")),
                List.of(Map.of("text", "doc")),
                true,
                false,
                Map.of()));
    // user+abc, user+text+defg, fn, doc
    assertThat(RequestAnalyzer.promptChars(chat, 1000)).isEqualTo(4 + 3 + 4 + 4 + 4 + 2 + 3);
    assertThat(RequestAnalyzer.promptChars(chat, 3)).isGreaterThan(3);
    assertThat(
            RequestAnalyzer.promptChars(
                new io.infera.router.tokenize.Prompt.Tokens(new int[50]), 1))
        .isZero();
  }
}
