package io.infera.router.engineload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Properties of the /metrics parser: any text at all is parsed without an exception and within its
 * bounds; rendered samples (any label values, escapes included, any finite value) read back
 * exactly, whatever garbage lines surround them.
 */
class PromTextProperties {

  record Series(String name, Map<String, String> labels, double value) {}

  @Provide
  Arbitrary<String> anyText() {
    Arbitrary<String> pieces =
        Arbitraries.oneOf(
            Arbitraries.strings().ofMaxLength(40),
            Arbitraries.of(
                "m",
                "m{",
                "}",
                "\"",
                "\\",
                "=",
                ",",
                " ",
                "\n",
                "\r\n",
                "NaN",
                "+Inf",
                "1e9",
                "{a=\"",
                "# TYPE m gauge\n",
                "m{a=\"1\"} 2\n",
                "\t",
                "\u0000",
                "\uD800"));
    return pieces.list().ofMaxSize(60).map(l -> String.join("", l));
  }

  @Property(tries = 500)
  void anyTextParsesWithinBounds(@ForAll("anyText") String text) {
    PromText.Limits lim = new PromText.Limits(64, 3, 5);
    PromText.Result r = PromText.parse(text, n -> n.equals("m") || n.startsWith("m"), lim);
    assertThat(r.samples().size()).isLessThanOrEqualTo(5);
    for (PromText.Sample s : r.samples()) {
      assertThat(s.labels().size()).isLessThanOrEqualTo(3);
      assertThat(s.name()).matches("[a-zA-Z_:][a-zA-Z0-9_:]*");
    }
    assertThat(r.malformed()).isNotNegative();
  }

  @Provide
  Arbitrary<List<Series>> series() {
    Arbitrary<String> labelName =
        Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(6);
    Arbitrary<String> labelValue =
        Arbitraries.strings()
            .withChars('a', 'Z', '"', '\\', '\n', '}', ',', '=', ' ', '{', '#', 'é')
            .ofMaxLength(12);
    Arbitrary<Map<String, String>> labels =
        Arbitraries.maps(labelName, labelValue).ofMaxSize(4).map(LinkedHashMap::new);
    Arbitrary<Double> value =
        Arbitraries.oneOf(
            Arbitraries.doubles().between(-1e12, 1e12),
            Arbitraries.of(0.0, 1.0, Double.MAX_VALUE, Double.MIN_VALUE));
    return Combinators.combine(Arbitraries.of("m", "vllm:num_requests_running"), labels, value)
        .as(Series::new)
        .list()
        .ofMaxSize(20);
  }

  @Property(tries = 300)
  void renderedSamplesReadBackExactly(
      @ForAll("series") List<Series> in, @ForAll("anyText") String garbage) {
    StringBuilder sb = new StringBuilder();
    List<Series> expected = new ArrayList<>();
    java.util.Set<String> keys = new java.util.HashSet<>();
    for (Series s : in) {
      // Garbage lines of an unwanted name between the samples never disturb them.
      sb.append("x_").append(garbage.replace('\n', ' ').replace('\r', ' ')).append('\n');
      sb.append(s.name());
      if (!s.labels().isEmpty()) {
        sb.append('{');
        boolean first = true;
        for (Map.Entry<String, String> e : s.labels().entrySet()) {
          sb.append(first ? "" : ",").append(e.getKey()).append("=\"");
          sb.append(e.getValue().replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n"));
          sb.append('"');
          first = false;
        }
        sb.append('}');
      }
      sb.append(' ').append(s.value()).append('\n');
      if (keys.add(s.name() + '\u0000' + s.labels())) {
        expected.add(s);
      }
    }
    PromText.Result r =
        PromText.parse(
            sb,
            n -> n.equals("m") || n.equals("vllm:num_requests_running"),
            new PromText.Limits(1 << 16, 8, 100));
    assertThat(r.samples()).hasSize(expected.size());
    for (int i = 0; i < expected.size(); i++) {
      assertThat(r.samples().get(i).name()).isEqualTo(expected.get(i).name());
      assertThat(r.samples().get(i).labels()).isEqualTo(expected.get(i).labels());
      assertThat(r.samples().get(i).value()).isEqualTo(expected.get(i).value());
    }
    assertThat(r.duplicates()).isEqualTo(in.size() - expected.size());
    assertThat(r.malformed()).isZero();
  }
}
