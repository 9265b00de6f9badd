package io.infera.jinja;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.jinja.TemplateBudgetException.Limit;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every limit of {@link RenderBudget} at its value (renders) and one past it (refused). */
class RenderBudgetTest {

  private static final long LOTS = 1_000_000_000L;

  private static String render(String src, RenderBudget budget) {
    return JinjaTemplate.parse(src).render(Map.of(), Clock.systemUTC(), budget);
  }

  private static void refused(String src, RenderBudget budget, Limit limit) {
    assertThatThrownBy(() -> render(src, budget))
        .isInstanceOfSatisfying(
            TemplateBudgetException.class,
            e -> {
              assertThat(e.limit()).isEqualTo(limit);
              assertThat(e.kind()).isEqualTo(TemplateException.Kind.BUDGET);
              assertThat(e.describe()).contains(limit.unit());
            });
  }

  @Test
  void outputAtTheLimitRendersAndOneCharacterMoreIsRefused() {
    RenderBudget b = new RenderBudget(100, 0, LOTS, 0, 50);
    assertThat(render("{% for i in range(100) %}x{% endfor %}", b)).hasSize(100);
    refused("{% for i in range(101) %}x{% endfor %}", b, Limit.OUTPUT);
  }

  @Test
  void oneValueAtTheLimitIsBuiltAndOneMoreIsRefusedBeforeItIsAllocated() {
    RenderBudget b = new RenderBudget(100, 0, LOTS, 0, 50);
    assertThat(render("{% set s = 'x' * 100 %}{{ s|length }}", b)).isEqualTo("100");
    refused("{% set s = 'x' * 101 %}", b, Limit.VALUE);
    assertThat(render("{% set s = 'x' * 50 %}{% set t = s ~ s %}{{ t|length }}", b))
        .isEqualTo("100");
    refused("{% set s = 'x' * 50 %}{% set t = s ~ s ~ 'y' %}", b, Limit.VALUE);
    // A list of 100 items: 100 for the size, 4 allocation units each (400: the allocation limit).
    String hundred = String.join(", ", java.util.Collections.nCopies(100, "1"));
    assertThat(render("{% set l = [" + hundred + "] %}", b)).isEmpty();
    refused("{% set l = [" + hundred + ", 1] %}", b, Limit.VALUE);
    refused("{{ ([1] * 101)|length }}", b, Limit.VALUE);
  }

  @Test
  void allocationAtTheLimitRendersAndOneValueMoreIsRefused() {
    // Allocation: 4 units per output character of the limit, 400 here; each 'x' * 100 is 100.
    RenderBudget b = new RenderBudget(100, 0, LOTS, 0, 50);
    assertThat(render("{% for i in range(4) %}{% set s = 'x' * 100 %}{% endfor %}", b)).isEmpty();
    refused("{% for i in range(5) %}{% set s = 'x' * 100 %}{% endfor %}", b, Limit.ALLOCATION);
  }

  @Test
  void stepsAtTheLimitRenderAndOneStepFewerIsRefused() {
    String src = "{% for i in range(1000) %}{{ i }}{% endfor %}";
    long[] used = new long[1];
    JinjaTemplate.parse(src)
        .render(Map.of(), Clock.systemUTC(), RenderBudget.DEFAULT, m -> used[0] = m.stepsUsed());
    assertThat(used[0]).isGreaterThan(3000);
    assertThat(render(src, new RenderBudget(LOTS, 0, used[0], 0, 50))).startsWith("0123");
    refused(src, new RenderBudget(LOTS, 0, used[0] - 1, 0, 50), Limit.STEPS);
  }

  @Test
  void callDepthAtTheLimitRendersAndOneCallDeeperIsRefused() {
    String macro =
        "{% macro m(n) %}{% if n > 0 %}{{ m(n - 1) }}{% else %}ok{% endif %}{% endmacro %}";
    RenderBudget b = new RenderBudget(LOTS, 0, LOTS, 0, 20);
    assertThat(render(macro + "{{ m(19) }}", b)).isEqualTo("ok");
    refused(macro + "{{ m(20) }}", b, Limit.DEPTH);
  }

  @Test
  void integersUpToTheBitLimitAreComputedAndLargerOnesRefused() {
    assertThat(render("{{ (2 ** 65536) > 0 }}", RenderBudget.DEFAULT)).isEqualTo("True");
    refused("{{ 2 ** 65537 }}", RenderBudget.DEFAULT, Limit.INTEGER);
    refused(
        "{% set n = namespace(v=2 ** 40000) %}{{ n.v * n.v }}",
        RenderBudget.DEFAULT, Limit.INTEGER);
  }

  @Test
  void theBudgetGrowsWithTheInput() {
    RenderBudget b = new RenderBudget(100, 2, LOTS, 0, 50);
    JinjaTemplate t = JinjaTemplate.parse("{{ text }}{{ text }}");
    // "text" → 16 for the string value + its 200 characters: input size 216, output limit 532.
    String text = "y".repeat(200);
    assertThat(JinjaTemplate.inputSize(text, 0)).isEqualTo(216);
    assertThat(b.outputLimit(216)).isEqualTo(532);
    assertThat(t.render(Map.of("text", text), Clock.systemUTC(), b)).hasSize(400);
    assertThatThrownBy(
            () ->
                JinjaTemplate.parse("{{ text }}{{ text }}{{ text }}")
                    .render(Map.of("text", text), Clock.systemUTC(), b))
        .isInstanceOf(TemplateBudgetException.class);
    assertThat(JinjaTemplate.inputSize(List.of(Map.of("role", "user", "content", "hi")), 0))
        .isEqualTo(16 + 16 + (16 + 4) + (16 + 4) + (16 + 7) + (16 + 2));
  }

  @Test
  void inputBeyondTheScalingCapBuysNothingMore() {
    RenderBudget b = RenderBudget.DEFAULT;
    long cap = RenderBudget.MAX_SCALED_INPUT;
    assertThat(b.outputLimit(cap + 1)).isEqualTo(b.outputLimit(cap));
    assertThat(b.outputLimit(1L << 40)).isEqualTo(b.outputLimit(cap));
    assertThat(b.stepLimit(1L << 40)).isEqualTo(b.stepLimit(cap));
    assertThat(b.outputLimit(cap)).isGreaterThan(b.outputLimit(cap - 1));
  }

  @Test
  void limitsSaturateInsteadOfOverflowing() {
    RenderBudget b = new RenderBudget(Long.MAX_VALUE - 1, Long.MAX_VALUE, Long.MAX_VALUE, 7, 1);
    assertThat(b.outputLimit(Long.MAX_VALUE)).isEqualTo(Integer.MAX_VALUE - 16);
    assertThat(b.stepLimit(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(b.allocationLimit(Long.MAX_VALUE)).isEqualTo((Integer.MAX_VALUE - 16) * 4L);
    assertThat(RenderBudget.saturatedMultiply(Long.MAX_VALUE / 2, 3)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void nonsenseBudgetsAreRefused() {
    assertThatThrownBy(() -> new RenderBudget(0, 1, 1, 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RenderBudget(1, -1, 1, 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RenderBudget(1, 1, 0, 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RenderBudget(1, 1, 1, 1, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aRefusedRenderLeavesNoMeterBehindOnItsThread() {
    refused("{{ 'x' * 101 }}", new RenderBudget(100, 0, LOTS, 0, 50), Limit.VALUE);
    assertThat(PyString.repeat("x", 1000)).hasSize(1000);
    assertThat(render("{{ 'x' * 1000 }}", RenderBudget.DEFAULT)).hasSize(1000);
  }

  @Test
  void deepNestingInTheSourceIsASyntaxErrorNotACrash() {
    assertThatThrownBy(
            () ->
                JinjaTemplate.parse(
                    "{{ " + "(".repeat(100_000) + "1" + ")".repeat(100_000) + " }}"))
        .isInstanceOfSatisfying(
            TemplateException.class,
            e -> assertThat(e.kind()).isEqualTo(TemplateException.Kind.SYNTAX));
  }
}
