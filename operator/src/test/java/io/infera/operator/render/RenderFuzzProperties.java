package io.infera.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.operator.testing.Fixtures;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Fuzz: random mutations of the samples never crash {@code render}; each renders (deterministic
 * output) or is refused with a one-line reason, exit code 2 from the CLI.
 */
class RenderFuzzProperties {

  private static final List<String> SAMPLES =
      List.of("vllm-mixed.yaml", "vllm-pd.yaml", "sglang-pd.yaml", "atom-pd.yaml", "sim.yaml")
          .stream()
          .map(s -> Fixtures.read(Fixtures.sample(s)))
          .toList();

  /** YAML- and schema-significant replacements. */
  private static final List<String> TOKENS =
      List.of(
          "",
          " ",
          "\n",
          "\t",
          ":",
          ": ",
          "- ",
          "-",
          "[",
          "]",
          "{",
          "}",
          "'",
          "\"",
          "#",
          "&a ",
          "*a",
          "!!binary ",
          "!!str ",
          "<<: *a",
          "---\n",
          "...\n",
          "|",
          ">",
          "?",
          "%YAML 1.2\n",
          "null",
          "~",
          "-1",
          "0",
          "1e400",
          ".inf",
          ".nan",
          "0x10",
          "99999999999999999999",
          "true",
          "yes",
          "\"\"",
          "[]",
          "{}",
          "pools",
          "name",
          "role",
          "decode",
          "prefill",
          "--block-size",
          "--page-size 8",
          "engine",
          "sim",
          "sglang",
          "gpu",
          "\u0000",
          "\uFFFF",
          "é",
          "\\");

  enum Kind {
    DELETE,
    INSERT,
    REPLACE,
    DUPLICATE_LINE,
    SWAP_LINES,
    DROP_LINE,
    INDENT_LINE,
    DEDENT_LINE
  }

  record Mutation(Kind kind, double at, double to, String payload) {}

  @Provide
  Arbitrary<String> mutatedSamples() {
    Arbitrary<String> payload =
        Arbitraries.oneOf(
            Arbitraries.of(TOKENS),
            Arbitraries.strings()
                .withChars(":-[]{}'\"#\n \t&*!|>%@`,?0123456789abcxyz.")
                .ofMaxLength(10));
    Arbitrary<Mutation> mutation =
        Combinators.combine(
                Arbitraries.of(Kind.class),
                Arbitraries.doubles().between(0, 1),
                Arbitraries.doubles().between(0, 1),
                payload)
            .as(Mutation::new);
    return Combinators.combine(Arbitraries.of(SAMPLES), mutation.list().ofMinSize(1).ofMaxSize(4))
        .as(RenderFuzzProperties::apply);
  }

  @Property(tries = 600)
  void mutatedSamplesRenderOrAreRefusedWithOneLine(@ForAll("mutatedSamples") String text) {
    Renderer.Result r = Renderer.render(text, "fuzz.yaml", Renderer.Format.YAML);
    Statistics.collect(r instanceof Renderer.Result.Rendered ? "rendered" : "refused");
    if (r instanceof Renderer.Result.Rejected rejected) {
      assertThat(rejected.message()).startsWith("fuzz.yaml").doesNotContain("\n");
    } else {
      Renderer.Result again = Renderer.render(text, "fuzz.yaml", Renderer.Format.YAML);
      assertThat(((Renderer.Result.Rendered) again).text())
          .isEqualTo(((Renderer.Result.Rendered) r).text());
    }
  }

  @Property(tries = 60)
  void cliExitsZeroOrTwoNeverWithAStackTrace(@ForAll("mutatedSamples") String text)
      throws IOException {
    Path file = Files.createTempFile("idep-fuzz", ".yaml");
    try {
      Files.writeString(file, text);
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      var cl = io.infera.operator.cli.InferaOperator.commandLine();
      cl.setOut(new PrintWriter(out, true));
      cl.setErr(new PrintWriter(err, true));
      int exit = cl.execute("render", "-f", file.toString());
      assertThat(exit).isIn(0, 2);
      if (exit == 2) {
        assertThat(out.toString()).isEmpty();
        assertThat(err.toString().strip()).isNotEmpty().doesNotContain("\n");
      } else {
        assertThat(out.toString()).startsWith("---\n");
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }

  static String apply(String sample, List<Mutation> mutations) {
    String s = sample;
    for (Mutation m : mutations) {
      s = apply(s, m);
    }
    return s;
  }

  private static String apply(String s, Mutation m) {
    int n = s.length();
    int a = (int) (m.at() * n);
    int b = Math.min(n, a + (int) (m.to() * 12));
    List<String> lines = new ArrayList<>(Arrays.asList(s.split("\n", -1)));
    int li = (int) (m.at() * lines.size());
    int lj = (int) (m.to() * lines.size());
    li = Math.min(li, lines.size() - 1);
    lj = Math.min(lj, lines.size() - 1);
    switch (m.kind()) {
      case DELETE -> {
        return s.substring(0, a) + s.substring(b);
      }
      case INSERT -> {
        return s.substring(0, a) + m.payload() + s.substring(a);
      }
      case REPLACE -> {
        return s.substring(0, a) + m.payload() + s.substring(b);
      }
      case DUPLICATE_LINE -> lines.add(li, lines.get(li));
      case SWAP_LINES -> {
        String t = lines.get(li);
        lines.set(li, lines.get(lj));
        lines.set(lj, t);
      }
      case DROP_LINE -> lines.remove(li);
      case INDENT_LINE -> lines.set(li, "  " + lines.get(li));
      case DEDENT_LINE -> lines.set(li, lines.get(li).replaceFirst("^ {1,2}", ""));
      default -> throw new IllegalStateException(m.kind().name());
    }
    return String.join("\n", lines);
  }
}
