package io.infera.jinja;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Byte equality with Python's Jinja2 (transformers' environment) on every golden case. */
class JinjaGoldenTest {

  private static final Map<String, JinjaTemplate> PARSED = new ConcurrentHashMap<>();

  static List<ChatGoldens.Case> cases() {
    return ChatGoldens.cases();
  }

  @Test
  void theCorpusIsLargeAndCoversEveryRequiredTemplate() {
    List<ChatGoldens.Case> cases = cases();
    assertThat(cases).hasSizeGreaterThanOrEqualTo(200);
    Map<String, Long> perTemplate =
        cases.stream()
            .collect(Collectors.groupingBy(ChatGoldens.Case::template, Collectors.counting()));
    assertThat(perTemplate).containsKeys("qwen3", "llama3", "llama3_1", "deepseek_v3", "gemma3");
    assertThat(cases.stream().filter(c -> c.errorType() != null).count()).isGreaterThan(5);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void rendersExactlyWhatPythonJinja2Renders(ChatGoldens.Case c) {
    if (c.errorType() == null) {
      String out = template(c.template()).render(c.variables(), ChatGoldens.FIXED_CLOCK);
      assertThat(out).isEqualTo(c.expected());
      return;
    }
    TemplateException.Kind kind = kindOf(c.errorType());
    assertThatThrownBy(() -> template(c.template()).render(c.variables(), ChatGoldens.FIXED_CLOCK))
        .isInstanceOfSatisfying(
            TemplateException.class,
            e -> {
              assertThat(e.kind()).as(e.getMessage()).isEqualTo(kind);
              if (kind == TemplateException.Kind.RAISED
                  || kind == TemplateException.Kind.UNDEFINED
                  || kind == TemplateException.Kind.SECURITY) {
                assertThat(e.getMessage()).isEqualTo(c.errorMessage());
              }
            });
  }

  private static JinjaTemplate template(String name) {
    return PARSED.computeIfAbsent(name, n -> JinjaTemplate.parse(ChatGoldens.templateSource(n)));
  }

  static TemplateException.Kind kindOf(String pythonType) {
    return switch (pythonType) {
      case "TemplateError" -> TemplateException.Kind.RAISED;
      case "UndefinedError" -> TemplateException.Kind.UNDEFINED;
      case "SecurityError" -> TemplateException.Kind.SECURITY;
      case "TemplateSyntaxError", "TemplateAssertionError" -> TemplateException.Kind.SYNTAX;
      default -> TemplateException.Kind.RUNTIME;
    };
  }
}
