package io.infera.jinja;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Templates come from model repositories and configs: malformed or hostile ones must fail with a
 * {@link TemplateException}, never another exception, a hang or a blown stack. Mutates every corpus
 * template many times and renders what still parses.
 */
class JinjaFuzzTest {

  private static final String[] SNIPPETS = {
    "{%",
    "%}",
    "{{",
    "}}",
    "{#",
    "#}",
    "{%-",
    "-%}",
    "|",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "'",
    "\"",
    ",",
    ".",
    ":",
    "~",
    "**",
    "//",
    " if ",
    " else ",
    " for ",
    " in ",
    " not ",
    " is ",
    "endfor",
    "endif",
    "endmacro",
    "loop.",
    "range(999)",
    "caller()",
    "namespace(",
    "|tojson",
    "|map(",
    "[::-1]",
    "%s",
    "\\",
    "\n",
    "{% raw %}",
    "{% endraw %}",
    "recursive",
    "set x =",
    "macro m(a=",
    "call m()",
    "break",
    "continue",
    "1e309",
    "-0",
    "999999999999999999999"
  };

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void mutatedTemplatesOnlyEverFailWithTemplateException() {
    long seed = Long.getLong("fuzz.seed", System.nanoTime());
    Random r = new Random(seed);
    Map<String, Map<String, Object>> vars = new HashMap<>();
    for (ChatGoldens.Case c : ChatGoldens.cases()) {
      vars.putIfAbsent(c.template(), c.variables());
    }
    List<String> names = new ArrayList<>(vars.keySet());
    int parsed = 0;
    int rendered = 0;
    int runs = 30_000;
    for (int run = 0; run < runs; run++) {
      String name = names.get(r.nextInt(names.size()));
      String source = mutate(ChatGoldens.templateSource(name), r);
      try {
        JinjaTemplate t = JinjaTemplate.parse(source);
        parsed++;
        t.render(vars.get(name), ChatGoldens.FIXED_CLOCK);
        rendered++;
      } catch (TemplateException expected) {
        assertThat(expected.getMessage()).isNotNull();
      } catch (Throwable t) {
        throw new AssertionError(
            "seed " + seed + " run " + run + " template " + name + ": " + t + "\n" + source, t);
      }
    }
    assertThat(parsed).as("parsed").isGreaterThan(runs / 20);
    assertThat(rendered).as("rendered").isGreaterThan(runs / 50);
  }

  private static String mutate(String s, Random r) {
    StringBuilder sb = new StringBuilder(s);
    int edits = 1 + r.nextInt(3);
    for (int e = 0; e < edits; e++) {
      int at = sb.length() == 0 ? 0 : r.nextInt(sb.length());
      switch (r.nextInt(4)) {
        case 0 -> {
          int len = Math.min(sb.length() - at, 1 + r.nextInt(8));
          sb.delete(at, at + len);
        }
        case 1 -> sb.insert(at, SNIPPETS[r.nextInt(SNIPPETS.length)]);
        case 2 -> {
          int from = sb.length() == 0 ? 0 : r.nextInt(sb.length());
          int len = Math.min(sb.length() - from, 1 + r.nextInt(40));
          sb.insert(at, sb.substring(from, from + len));
        }
        default -> {
          if (sb.length() > 0) {
            sb.setCharAt(at, (char) (32 + r.nextInt(95)));
          }
        }
      }
    }
    return sb.toString();
  }
}
