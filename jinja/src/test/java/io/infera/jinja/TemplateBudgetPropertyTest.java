package io.infera.jinja;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Generated templates built from growth-prone pieces (loops, doubling, filters with large
 * arguments, recursion) with random sizes: each render ends in text or a {@link TemplateException},
 * never another exception, an Error or a run past its budget.
 */
class TemplateBudgetPropertyTest {

  private static final RenderBudget SMALL = new RenderBudget(20_000, 4, 200_000, 16, 30);

  @Property(tries = 400)
  void renderingEndsInTextOrATemplateError(@ForAll("templates") String src) {
    long t0 = System.nanoTime();
    try {
      String out =
          JinjaTemplate.parse(src)
              .render(
                  Map.of("messages", List.of(Map.of("role", "user", "content", "hello"))),
                  Clock.systemUTC(),
                  SMALL);
      assertThat(out.length()).isLessThanOrEqualTo((int) SMALL.outputLimit(1_000));
    } catch (TemplateException expected) {
      // the engine's own error: a budget or a template bug
    }
    assertThat((System.nanoTime() - t0) / 1_000_000).as(src).isLessThan(10_000);
  }

  @Provide
  Arbitrary<String> templates() {
    Arbitrary<String> n = Arbitraries.of("0", "1", "7", "40", "999", "100000", "10 ** 9", "-3");
    Arbitrary<String> value =
        Arbitraries.of("'ab'", "s", "ns.s", "[1, 2]", "l", "(1,)", "{'k': 1}", "messages", "42");
    Arbitrary<String> piece =
        Arbitraries.oneOf(
            Combinators.combine(value, n).as((v, k) -> "{{ " + v + " * " + k + " }}"),
            Combinators.combine(value, value).as((a, b) -> "{% set s = " + a + " ~ " + b + " %}"),
            Combinators.combine(value, value).as((a, b) -> "{% set l = " + a + " + " + b + " %}"),
            value.map(v -> "{% set ns.s = ns.s ~ " + v + " %}"),
            value.map(v -> "{% set ns.l = ns.l + [" + v + "] %}"),
            Combinators.combine(n, value)
                .as((k, v) -> "{% for i in range(" + k + ") %}{{ " + v + " }}{% endfor %}"),
            Combinators.combine(n, n)
                .as(
                    (a, b) ->
                        "{% for i in range("
                            + a
                            + ") %}{% for j in range("
                            + b
                            + ") %}{% set ns.s = ns.s ~ 'x' %}{% endfor %}{% endfor %}"),
            Combinators.combine(value, n).as((v, k) -> "{{ " + v + "|string|center(" + k + ") }}"),
            Combinators.combine(value, n).as((v, k) -> "{{ " + v + "|tojson(indent=" + k + ") }}"),
            Combinators.combine(value, n).as((v, k) -> "{{ " + v + "|indent(" + k + ") }}"),
            Combinators.combine(value, value)
                .as((a, b) -> "{{ (" + a + ")|string|replace('', " + b + "|string) }}"),
            Combinators.combine(value, value).as((a, b) -> "{{ [" + a + ", " + b + "]|join(s) }}"),
            n.map(k -> "{{ ('%s' * " + k + ") % (s,) }}"),
            n.map(k -> "{{ '{0}{0}'.format(s)|batch(" + k + ", 'x')|list }}"),
            n.map(k -> "{{ r(" + k + ") }}"),
            n.map(k -> "{{ 2 ** " + k + " }}"),
            value.map(v -> "{{ " + v + " == " + v + " }}"),
            value.map(v -> "{{ " + v + "|list|unique|sort|list }}"),
            Arbitraries.of("{% set l = [l, l] %}", "{% set s = s ~ s %}", "{{ l }}", "{{ s }}"));
    return piece
        .list()
        .ofMinSize(1)
        .ofMaxSize(12)
        .map(
            ps ->
                "{% set s = 'ab' %}{% set l = [1] %}{% set ns = namespace(s='x', l=[]) %}"
                    + "{% macro r(k) %}{% if k > 0 %}{{ r(k - 1) }}{{ r(k - 1) }}{% endif %}{% endmacro %}"
                    + String.join("", ps));
  }
}
