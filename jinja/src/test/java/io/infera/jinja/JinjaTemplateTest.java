package io.infera.jinja;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Engine behaviour beyond the golden corpus: limits, error reporting, thread safety. */
class JinjaTemplateTest {

  private static String render(String src, Map<String, ?> vars) {
    return JinjaTemplate.parse(src).render(vars, ChatGoldens.FIXED_CLOCK);
  }

  @Test
  void tojsonSeparatorsMustBeAPair() {
    // Found by JinjaFuzzTest (seed 16831243267879): a 1-tuple used to throw IndexOutOfBounds.
    assertThatThrownBy(() -> render("{{ [1] | tojson(separators=(',',)) }}", Map.of()))
        .isInstanceOf(TemplateException.class)
        .hasMessageContaining("tojson separators must be a pair");
    assertThatThrownBy(() -> render("{{ [1] | tojson(separators=(',', ':', ';')) }}", Map.of()))
        .isInstanceOf(TemplateException.class);
    assertThat(render("{{ {'a': [1, 2]} | tojson(separators=(',', ':')) }}", Map.of()))
        .isEqualTo("{\"a\":[1,2]}");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '#',
      quoteCharacter = '"',
      value = {
        "{{ '%c' % -42 }}",
        "{{ '%c' % 1114112 }}",
        "{{ '%c' % (2 ** 64 + 65) }}",
        "{{ '{:c}'.format(-42) }}",
        "{{ '{:c}'.format(2 ** 40) }}",
        "{{ '{:c}'.format(2 ** 64 + 65) }}",
      })
  void aCodePointOutOfRangeIsPythonsOverflowError(String src) {
    // Found by JinjaFuzzTest (seed 853590466165): '{:c}' of -42 used to throw
    // IllegalArgumentException; a value past 32 bits was truncated instead of refused.
    assertThatThrownBy(() -> render(src, Map.of()))
        .isInstanceOfSatisfying(
            TemplateException.class,
            e -> assertThat(e.kind()).isEqualTo(TemplateException.Kind.RUNTIME))
        .hasMessage("%c arg not in range(0x110000)");
  }

  @Test
  void aCodePointInRangeIsItsCharacter() {
    assertThat(render("{{ '%c' % 65 }}{{ '{:c}'.format(66) }}", Map.of())).isEqualTo("AB");
    assertThat(render("{{ '%c' % 0 }}", Map.of())).isEqualTo("\0");
    assertThat(render("{{ '{:c}'.format(128512) }}", Map.of())).isEqualTo("\uD83D\uDE00");
    assertThat(render("{{ '%c' % 1114111 }}", Map.of()))
        .isEqualTo(new String(Character.toChars(Character.MAX_CODE_POINT)));
  }

  @Test
  void runawayLoopsAndHugeOutputsAreStoppedWithAClearError() {
    assertThatThrownBy(
            () ->
                render(
                    "{% for a in range(99999) %}{% for b in range(99999) %}{% endfor %}{% endfor %}",
                    Map.of()))
        .isInstanceOfSatisfying(
            TemplateBudgetException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(TemplateException.Kind.BUDGET);
              assertThat(e.limit()).isEqualTo(TemplateBudgetException.Limit.STEPS);
            })
        .hasMessageContaining("work steps");
    assertThatThrownBy(() -> render("{{ 'x' * 999999999999 }}", Map.of()))
        .isInstanceOfSatisfying(
            TemplateBudgetException.class,
            e -> assertThat(e.limit()).isEqualTo(TemplateBudgetException.Limit.VALUE))
        .hasMessageContaining("characters or items in one value");
    assertThatThrownBy(() -> render("{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}", Map.of()))
        .isInstanceOfSatisfying(
            TemplateBudgetException.class,
            e -> assertThat(e.limit()).isEqualTo(TemplateBudgetException.Limit.DEPTH))
        .hasMessageContaining("call depth");
    assertThatThrownBy(() -> render("{{ range(200000) | list }}", Map.of()))
        .isInstanceOfSatisfying(
            TemplateException.class,
            e -> assertThat(e.kind()).isEqualTo(TemplateException.Kind.SECURITY));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '#',
      value = {
        "{% if %}#SYNTAX",
        "{{ x | nosuchfilter }}#SYNTAX",
        "{% for x in %}{% endfor %}#SYNTAX",
        "{% include 'x' %}#SYNTAX",
        "{{ raise_exception('bad role') }}#RAISED",
        "{{ undefined_thing.attr }}#UNDEFINED",
        "{{ [1].append(2) }}#SECURITY",
        "{{ 1 + 'a' }}#RUNTIME",
        "{{ x is nosuchtest }}#RUNTIME"
      })
  void errorsCarryJinjasKind(String src, TemplateException.Kind kind) {
    assertThatThrownBy(() -> render(src, Map.of("x", 1)))
        .isInstanceOfSatisfying(
            TemplateException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(kind);
              assertThat(e.describe()).isNotBlank();
            });
  }

  @Test
  void syntaxErrorsNameTheLine() {
    assertThatThrownBy(() -> JinjaTemplate.parse("line one\nline two\n{% if %}"))
        .isInstanceOfSatisfying(
            TemplateException.class,
            e -> {
              assertThat(e.line()).isEqualTo(3);
              assertThat(e.describe()).contains("template line 3");
            });
  }

  @Test
  void aParsedTemplateRendersConcurrentlyWithoutSharedState() throws Exception {
    JinjaTemplate t =
        JinjaTemplate.parse(
            "{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}"
                + "{{ m }}{% endfor %}={{ ns.n }}");
    List<Thread> threads = new java.util.ArrayList<>();
    java.util.concurrent.atomic.AtomicInteger bad = new java.util.concurrent.atomic.AtomicInteger();
    for (int i = 0; i < 4; i++) {
      int n = i + 1;
      Thread th =
          new Thread(
              () -> {
                for (int k = 0; k < 2000; k++) {
                  String out = t.render(Map.of("messages", java.util.Collections.nCopies(n, "a")));
                  if (!out.equals("a".repeat(n) + "=" + n)) {
                    bad.incrementAndGet();
                  }
                }
              });
      threads.add(th);
      th.start();
    }
    for (Thread th : threads) {
      th.join();
    }
    assertThat(bad.get()).isZero();
  }

  @Test
  void hostValuesAreConvertedToPythonValues() {
    assertThat(
            render(
                "{{ a }} {{ b }} {{ c }} {{ d }}",
                Map.of("a", 1, "b", 2.5f, "c", List.of(1, "x"), "d", true)))
        .isEqualTo("1 2.5 [1, 'x'] True");
  }
}
