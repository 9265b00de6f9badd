package io.infera.jinja;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Templates written to exhaust a renderer (memory, time, stack), each with the outcome the engine
 * must give: a {@link TemplateBudgetException} of a given limit, or the sandbox's own refusal.
 * {@link #main} renders them all and prints one line each, for a JVM started with a small heap.
 */
final class HostileTemplates {

  private HostileTemplates() {}

  /** What a hostile template must end in. */
  record Hostile(String name, String source, String expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  // A {% set %} inside a loop writes the iteration's scope (Jinja's rule), so growth that must
  // compound is unrolled at the top level or kept in a namespace.
  private static final String DAG = unrolled("{% set l = [1] %}", "{% set l = [l, l] %}");
  private static final String DAG2 = unrolled("{% set k = [1] %}", "{% set k = [k, k] %}");

  private static String unrolled(String init, String step) {
    return init + step.repeat(40);
  }

  static final List<Hostile> ALL =
      List.of(
          h(
              "concat-doubling",
              unrolled("{% set s = 'a' %}", "{% set s = s ~ s %}") + "{{ s }}",
              "VALUE"),
          h(
              "plus-doubling",
              unrolled("{% set s = 'a' %}", "{% set s = s + s %}") + "{{ s }}",
              "VALUE"),
          h(
              "namespace-doubling",
              "{% set ns = namespace(s='a') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}",
              "VALUE"),
          h(
              "markup-doubling",
              unrolled("{% set s = 'a'|safe %}", "{% set s = s + s %}") + "{{ s }}",
              "VALUE"),
          h(
              "list-doubling",
              unrolled("{% set l = [1] %}", "{% set l = l + l %}") + "{{ l|length }}",
              "VALUE|ALLOCATION"),
          h(
              "tuple-doubling",
              unrolled("{% set t = (1,) %}", "{% set t = t + t %}") + "{{ t|length }}",
              "VALUE|ALLOCATION"),
          h(
              "loop-scoped-doubling",
              "{% set s = 'a' %}{% for i in range(40) %}{% set s = s ~ s %}{% endfor %}{{ s }}",
              "rendered"),
          h("string-times-huge", "{{ 'x' * 10 ** 9 }}", "VALUE"),
          h("string-times-chained", "{{ 'x' * 1000000 * 1000 }}", "VALUE"),
          h("list-times-huge", "{{ ([1] * 10 ** 9)|length }}", "VALUE"),
          h("list-times-list", "{{ ((range(100000)|list) * 100)|length }}", "VALUE"),
          h(
              "nested-loops",
              "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}",
              "STEPS"),
          h(
              "triple-loops",
              "{% for a in range(1000) %}{% for b in range(1000) %}{% for c in range(1000) %}{{ '' }}{% endfor %}{% endfor %}{% endfor %}",
              "STEPS"),
          h("recursive-macro", "{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}{{ m(0) }}", "DEPTH"),
          h(
              "mutual-recursion",
              "{% macro a(n) %}{{ b(n) }}{% endmacro %}{% macro b(n) %}{{ a(n) }}{% endmacro %}{{ a(0) }}",
              "DEPTH"),
          h("recursive-loop", "{% for x in [1] recursive %}{{ loop([1]) }}{% endfor %}", "DEPTH"),
          h(
              "recursive-caller",
              "{% macro m() %}{% call m() %}x{% endcall %}{% endmacro %}{{ m() }}",
              "DEPTH"),
          h(
              "exponential-macro",
              "{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{{ f(n - 1) }}{% else %}xxxxxxxx{% endif %}{% endmacro %}{{ f(40) }}",
              "OUTPUT|STEPS"),
          h("join-huge", "{{ (['x' * 100000] * 100000)|join }}", "VALUE"),
          h("join-separator-huge", "{{ range(100000)|map('string')|join(',' * 100000) }}", "VALUE"),
          h("str-join-huge", "{{ ('x' * 100000).join(['a'] * 100000) }}", "VALUE"),
          h("replace-empty", "{% set s = 'a' * 2000 %}{{ s.replace('', s) }}", "VALUE"),
          h("replace-filter", "{{ ('a' * 1000)|replace('a', 'a' * 10000) }}", "VALUE"),
          h(
              "replace-doubling",
              unrolled("{% set s = 'a' %}", "{% set s = s.replace('a', 'aa') %}") + "{{ s }}",
              "VALUE"),
          h("center-huge", "{{ 'x'|center(10 ** 9) }}", "VALUE"),
          h("ljust-huge", "{{ 'x'.ljust(10 ** 9) }}", "VALUE"),
          h("zfill-huge", "{{ '1'.zfill(10 ** 9) }}", "VALUE"),
          h("percent-width", "{{ '%999999999d' % 1 }}", "VALUE"),
          h("format-width", "{{ '{:>999999999}'.format('x') }}", "VALUE"),
          h(
              "percent-repeat",
              "{% set s = 'x' * 100000 %}{{ ('%s' * 1000) % ((s,) * 1000) }}",
              "VALUE"),
          h("format-repeat", "{{ ('{0}' * 1000).format('x' * 100000) }}", "VALUE"),
          h("format-filter-repeat", "{{ ('%(a)s' * 1000)|format(a='x' * 100000) }}", "VALUE"),
          h("tojson-indent-huge", "{{ [[[[1]]]]|tojson(indent=10 ** 8) }}", "VALUE"),
          h("tojson-shared-dag", DAG + "{{ l|tojson }}", "VALUE|ALLOCATION"),
          h("repr-shared-dag", DAG + "{{ l }}", "VALUE"),
          h("string-filter-dag", DAG + "{{ l|string|length }}", "VALUE"),
          h("equality-dag", DAG + DAG2 + "{{ l == k }}", "STEPS"),
          h(
              "dict-items-in-loop",
              "{% set d = {}.fromkeys(range(50000)|list) %}{% for i in range(10000) %}{% set x = d.items() %}{% endfor %}",
              "ALLOCATION"),
          h(
              "kwargs-splat-in-loop",
              "{% set d = {}.fromkeys(range(50000)|map('string')|list) %}{% macro m() %}{% endmacro %}"
                  + "{% for i in range(100000) %}{{ m(**d) }}{% endfor %}",
              "ALLOCATION"),
          h(
              "namespace-dict-growth",
              "{% set ns = namespace(d={}) %}{% for i in range(100000) %}{% set ns.d = dict(ns.d, **{('k' ~ i): i}) %}{% endfor %}",
              "ALLOCATION"),
          h(
              "list-growth-loop",
              "{% set ns = namespace(l=[]) %}{% for i in range(100000) %}{% set ns.l = ns.l + ['x' ~ i] %}{% endfor %}",
              "ALLOCATION"),
          h("integer-power", "{{ 10 ** 100000000 }}", "INTEGER"),
          h(
              "integer-squaring",
              "{% set n = namespace(v=3) %}{% for i in range(40) %}{% set n.v = n.v * n.v %}{% endfor %}{{ n.v }}",
              "INTEGER"),
          h("indent-huge", "{{ ('a\\n' * 100000)|indent(100000) }}", "VALUE"),
          h("batch-fill-huge", "{{ [1]|batch(10 ** 9, 'x')|list }}", "VALUE"),
          h("expandtabs-huge", "{{ ('\\t' * 100000).expandtabs(100000) }}", "VALUE"),
          h(
              "split-in-loop",
              "{% set s = 'a b ' * 1000 %}{% for i in range(100000) %}{% set x = s.split(' ') %}{% endfor %}",
              "ALLOCATION"),
          h("list-of-string", "{{ ('x' * 1000000)|list|length }}", "ALLOCATION"),
          h("unique-quadratic", "{{ range(100000)|unique|list|length }}", "STEPS"),
          h(
              "sort-in-loop",
              "{% for i in range(1000) %}{{ range(100000)|sort|length }}{% endfor %}",
              "STEPS"),
          h(
              "contains-scan",
              "{% set s = 'a' * 1000000 %}{% for i in range(100000) %}{% if 'b' in s %}{% endif %}{% endfor %}",
              "STEPS"),
          h("output-flood", "{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}", "OUTPUT"),
          h(
              "garbage-flood",
              "{% for i in range(100000) %}{% set x = 'y' * 100000 %}{% endfor %}",
              "ALLOCATION"),
          h(
              "set-block-doubling",
              unrolled("{% set s = 'a' %}", "{% set s %}{{ s }}{{ s }}{% endset %}") + "{{ s }}",
              "OUTPUT"),
          h(
              "filter-block-flood",
              "{% filter upper %}{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}{% endfilter %}",
              "OUTPUT"),
          h(
              "slice-in-loop",
              "{% set l = range(100000)|list %}{% for i in range(100000) %}{% set x = l[::-1] %}{% endfor %}",
              "ALLOCATION"),
          h("range-huge", "{{ range(10 ** 12)|list|length }}", "SECURITY"),
          h("string-times-past-index-range", "{{ 'x' * 2 ** 64 }}", "RUNTIME"),
          h("range-past-index-range", "{{ range(2 ** 64 + 5)|list|length }}", "RUNTIME|SECURITY"),
          h(
              "round-int-to-huge-negative-precision",
              "{{ 7 ** 1000 | round(-(10 ** 30)) }}",
              "rendered"),
          h("round-ceil-huge-precision", "{{ 1.5 | round(10 ** 30, 'ceil') }}", "RUNTIME"),
          h("index-that-wraps-to-a-valid-index", "{{ [1, 2, 3][2 ** 64 + 1] }}", "rendered"),
          h(
              "deep-parens",
              "{{ " + "(".repeat(100_000) + "1" + ")".repeat(100_000) + " }}",
              "SYNTAX"),
          h("deep-lists", "{{ " + "[".repeat(100_000) + "]".repeat(100_000) + " }}", "SYNTAX"));

  private static Hostile h(String name, String source, String expected) {
    return new Hostile(name, source, expected);
  }

  /** A tiny request: a system prompt and one user turn. */
  static Map<String, Object> variables() {
    Map<String, Object> vars = new LinkedHashMap<>();
    vars.put(
        "messages",
        List.of(
            Map.of("role", "system", "content", "You are helpful."),
            Map.of("role", "user", "content", "Hi!")));
    vars.put("add_generation_prompt", true);
    return vars;
  }

  /**
   * The outcome of one template: the budget limit it hit, the kind of another template error, or
   * "rendered" — never anything else (an Error propagates and fails the caller).
   */
  static String outcome(Hostile h) {
    try {
      JinjaTemplate.parse(h.source()).render(variables(), Clock.systemUTC());
      return "rendered";
    } catch (TemplateBudgetException e) {
      return e.limit().name();
    } catch (TemplateException e) {
      return e.kind().name();
    }
  }

  /** Renders every template; prints "name outcome" lines, then "done". */
  public static void main(String[] args) {
    for (Hostile h : ALL) {
      System.out.println(h.name() + " " + outcome(h));
    }
    System.out.println("done");
  }
}
