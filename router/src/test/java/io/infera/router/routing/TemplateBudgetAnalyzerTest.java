package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.config.ConfigException;
import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.json.Json;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.TemplateBudget;
import io.infera.router.tokenize.TestTokenizers;
import io.infera.router.tokenize.TokenizerSource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chat template over its budget: the request's own {@code chat_template} is a 400 naming the
 * limit's config key; the model's template routes the request by load ({@code template_budget},
 * shown by explain and counted).
 */
class TemplateBudgetAnalyzerTest {

  private static final String DOUBLING =
      "{% set ns = namespace(s='a') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}"
          + "{% endfor %}{{ ns.s }}";

  private static RouterConfig config(String limits) throws Exception {
    return ConfigLoader.parse(
        "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
            + "discovery: {workers: [{id: w, url: 'http://x:1'}]}\n"
            + limits);
  }

  private static String body(String template, String content) {
    return "{"
        + (template == null ? "" : "\"chat_template\":" + Json.write(template) + ",")
        + "\"messages\":[{\"role\":\"user\",\"content\":"
        + Json.write(content)
        + "}]}";
  }

  private static RequestAnalyzer.Result chat(RequestAnalyzer a, String body) {
    return a.analyze(body.getBytes(StandardCharsets.UTF_8), RequestAnalyzer.Endpoint.CHAT);
  }

  @Test
  void aRequestsOwnTemplateOverItsBudgetIsABadRequestNamingTheLimit() throws Exception {
    RequestAnalyzer a = new RequestAnalyzer(config(""), TestTokenizers.qwen3(), null);
    RequestAnalyzer.Result r = chat(a, body(DOUBLING, "hi"));
    assertThat(r).isInstanceOf(RequestAnalyzer.Result.Failed.class);
    RoutingFailure f = ((RequestAnalyzer.Result.Failed) r).failure();
    assertThat(f).isInstanceOf(RoutingFailure.BadRequest.class);
    assertThat(((RoutingFailure.BadRequest) f).param()).isEqualTo("chat_template");
    assertThat(f.message())
        .contains("template budget", "characters or items in one value")
        .contains("limits.templateOutputChars");
  }

  @Test
  void theModelsTemplateOverItsBudgetRoutesByLoad(@TempDir Path dir) throws Exception {
    Files.copy(
        TestTokenizers.resource("tiny-bos").resolve("tokenizer.json"),
        dir.resolve("tokenizer.json"));
    Files.writeString(dir.resolve("chat_template.jinja"), DOUBLING);
    try (PromptTokenizer tok =
        PromptTokenizer.load(
            new TokenizerSource.Directory(dir), PromptTokenizer.Options.defaults())) {
      RequestAnalyzer a = new RequestAnalyzer(config(""), tok, null);
      RequestAnalyzer.Analyzed an = ok(chat(a, body(null, "hi")));
      assertThat(an.tokenizeFailure()).isEqualTo("template_budget");
      assertThat(an.hashes().base()).isEmpty();
    }
  }

  @Test
  void theConfiguredBudgetHoldsAtItsLimitAndRefusesPastIt() throws Exception {
    RouterConfig cfg =
        config(
            "limits: {templateOutputChars: 2000, templateOutputPerInputChar: 0,"
                + " templateSteps: 100000, templateStepsPerInputChar: 0, templateMaxDepth: 5}\n");
    assertThat(cfg.limits().template()).isEqualTo(new TemplateBudget(2000, 0, 100000, 0, 5));
    try (PromptTokenizer tok =
        PromptTokenizer.load(
                new TokenizerSource.Builtin("qwen3"), PromptTokenizer.Options.defaults())
            .templateBudget(cfg.limits().template())) {
      RequestAnalyzer a = new RequestAnalyzer(cfg, tok, null);
      String t = "{{ messages[0].content }}{{ 'x' * N }}";
      // The user's content (2 characters) plus 1,998 = 2,000 output characters: at the limit.
      assertThat(ok(chat(a, body(t.replace("N", "1998"), "hi"))).tokenizeFailure()).isNull();
      RequestAnalyzer.Result past = chat(a, body(t.replace("N", "1999"), "hi"));
      assertThat(((RequestAnalyzer.Result.Failed) past).failure().message())
          .contains("2000 output characters");
      String deep =
          "{% macro m(k) %}{% if k > 0 %}{{ m(k - 1) }}{% endif %}{% endmacro %}{{ m(K) }}";
      assertThat(ok(chat(a, body(deep.replace("K", "4"), "hi"))).tokenizeFailure()).isNull();
      assertThat(
              ((RequestAnalyzer.Result.Failed) chat(a, body(deep.replace("K", "5"), "hi")))
                  .failure()
                  .message())
          .contains("call depth", "limits.templateMaxDepth");
      String loop = "{% for i in range(K) %}{% endfor %}";
      assertThat(
              ((RequestAnalyzer.Result.Failed) chat(a, body(loop.replace("K", "99999"), "hi")))
                  .failure()
                  .message())
          .contains("work steps", "limits.templateSteps");
    }
  }

  @Test
  void theDefaultsFitAMillionTokenChatOfTheModelsTemplate() throws Exception {
    RequestAnalyzer a = new RequestAnalyzer(config(""), TestTokenizers.qwen3(), null);
    // About a million tokens of content (4 Mi characters) through Qwen3's own template.
    String big = "word ".repeat(4 << 18);
    RequestAnalyzer.Analyzed an = ok(chat(a, body(null, big)));
    assertThat(an.tokenizeFailure()).isNull();
    assertThat(an.tokens()).isGreaterThan(1_000_000);
  }

  @Test
  void templateKeysOutOfRangeAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> config("limits: {templateOutputChars: 10}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("templateOutputChars");
    assertThatThrownBy(() -> config("limits: {templateMaxDepth: 0}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("templateMaxDepth");
    assertThatThrownBy(() -> config("limits: {templateStepsPerInputChar: -1}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("templateStepsPerInputChar");
  }

  private static RequestAnalyzer.Analyzed ok(RequestAnalyzer.Result r) {
    assertThat(r).isInstanceOf(RequestAnalyzer.Result.Ok.class);
    return ((RequestAnalyzer.Result.Ok) r).analyzed();
  }
}
