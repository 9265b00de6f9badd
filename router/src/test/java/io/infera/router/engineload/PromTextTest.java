package io.infera.router.engineload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PromTextTest {

  private static final Set<String> WANTED =
      Set.of("vllm:num_requests_running", "vllm:num_requests_waiting", "m");

  private static PromText.Result parse(String text) {
    return PromText.parse(text, WANTED::contains, PromText.Limits.DEFAULTS);
  }

  @Test
  void readsAVllmExpositionKeepingOnlyTheWantedSeries() {
    PromText.Result r =
        parse(
            """
            # HELP vllm:num_requests_running Number of requests in model execution batches.
            # TYPE vllm:num_requests_running gauge
            vllm:num_requests_running{model_name="Qwen/Qwen3-0.6B",engine="0"} 3.0
            vllm:num_requests_running{model_name="Qwen/Qwen3-0.6B",engine="1"} 0.0
            # TYPE vllm:num_requests_waiting gauge
            vllm:num_requests_waiting{model_name="Qwen/Qwen3-0.6B",engine="0"} 7
            vllm:time_to_first_token_seconds_bucket{le="0.001",engine="0"} 0.0
            process_cpu_seconds_total 12.5
            """);
    assertThat(r.samples()).hasSize(3);
    assertThat(r.samples().get(0).labels())
        .containsExactly(Map.entry("model_name", "Qwen/Qwen3-0.6B"), Map.entry("engine", "0"));
    assertThat(r.samples().get(0).value()).isEqualTo(3.0);
    assertThat(r.samples().get(2).name()).isEqualTo("vllm:num_requests_waiting");
    assertThat(r.samples().get(2).value()).isEqualTo(7.0);
    assertThat(r.malformed() + r.duplicates() + r.longLines() + r.dropped()).isZero();
  }

  @Test
  void labelEscapesAreDecoded() {
    PromText.Result r = parse("m{a=\"x\\\"y\\\\z\\nw\",b=\"\\q\"} 1\n");
    assertThat(r.samples()).hasSize(1);
    assertThat(r.samples().get(0).label("a")).isEqualTo("x\"y\\z\nw");
    // Unknown escapes are kept verbatim, as Prometheus does.
    assertThat(r.samples().get(0).label("b")).isEqualTo("\\q");
  }

  @Test
  void aClosingBraceOrCommaInsideAQuotedValueIsPartOfIt() {
    PromText.Result r = parse("m{a=\"}, b=\\\"1\\\"\",c=\"2\",} 5 1700000000000\n");
    assertThat(r.samples()).hasSize(1);
    assertThat(r.samples().get(0).labels())
        .containsExactly(Map.entry("a", "}, b=\"1\""), Map.entry("c", "2"));
    assertThat(r.samples().get(0).value()).isEqualTo(5.0);
  }

  @ParameterizedTest
  @CsvSource({
    "NaN,NaN",
    "+Inf,Infinity",
    "Inf,Infinity",
    "-Inf,-Infinity",
    "1e3,1000.0",
    "-0.5,-0.5",
    "+2,2.0",
    "1.5E-2,0.015"
  })
  void specialAndExponentValuesAreRead(String text, double expected) {
    PromText.Result r = parse("m " + text + "\n");
    assertThat(r.samples()).hasSize(1);
    assertThat(Double.valueOf(r.samples().get(0).value())).isEqualTo(Double.valueOf(expected));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "m 1d",
        "m 0x1p3",
        "m Infinity",
        "m",
        "m ",
        "m{a=\"1\"}",
        "m{a=\"1\" 2",
        "m{a=1} 2",
        "m{=\"1\"} 2",
        "m{a=\"1\",a=\"2\"} 3",
        "m{a=\"1\"}2",
        "m{1a=\"1\"} 2",
        "m 1 2 3",
        "m 1 abc",
        "m 1 123456789012345678901234",
        "m{a=\"unterminated} 1",
        "m{a=\"x\\",
        "m{a=\"1\"} 1e",
        "m{a=\"1\"} --1",
        "m{a=\"1\"} 1.2.3",
        "m{a=\"1\"} ١"
      })
  void malformedWantedLinesAreSkippedAndCounted(String line) {
    PromText.Result r = parse("m{ok=\"1\"} 1\n" + line + "\nm{ok=\"2\"} 2\n");
    assertThat(r.samples()).extracting(PromText.Sample::value).containsExactly(1.0, 2.0);
    assertThat(r.malformed()).isEqualTo(1);
  }

  @Test
  void garbageOfUnwantedNamesIsSkippedWithoutBeingCounted() {
    PromText.Result r = parse("other{{{ garbage\n\u0000\u0001\n{}} 3\n  \t\n# comment\nm 4\n");
    assertThat(r.samples()).hasSize(1);
    assertThat(r.malformed()).isZero();
  }

  @Test
  void aDuplicateSeriesKeepsItsFirstValue() {
    PromText.Result r = parse("m{a=\"1\"} 1\nm{a=\"1\"} 9\nm{a=\"2\"} 2\nm 3\nm 4\n");
    assertThat(r.samples()).extracting(PromText.Sample::value).containsExactly(1.0, 2.0, 3.0);
    assertThat(r.duplicates()).isEqualTo(2);
  }

  @Test
  void crlfLineEndsAndTabsAreAccepted() {
    PromText.Result r = parse("m{a=\"1\"}\t5\r\nm{a=\"2\"} 6\r\n");
    assertThat(r.samples()).extracting(PromText.Sample::value).containsExactly(5.0, 6.0);
  }

  @Test
  void aLineAtTheLengthLimitIsReadOnePastItIsSkipped() {
    PromText.Limits lim = new PromText.Limits(40, 8, 100);
    String at = "m{a=\"" + "x".repeat(40 - 9) + "\"} 1"; // exactly 40 chars
    String past = "m{a=\"" + "x".repeat(41 - 9) + "\"} 1";
    assertThat(at).hasSize(40);
    assertThat(PromText.parse(at + "\n", WANTED::contains, lim).samples()).hasSize(1);
    PromText.Result r = PromText.parse(past + "\nm 2\n", WANTED::contains, lim);
    assertThat(r.samples()).extracting(PromText.Sample::value).containsExactly(2.0);
    assertThat(r.longLines()).isEqualTo(1);
  }

  @Test
  void aHugeLineCostsOnlyItsScan() {
    String huge = "m{a=\"" + "x".repeat(3 << 20) + "\"} 1\nm 2\n";
    PromText.Result r = parse(huge);
    assertThat(r.samples()).extracting(PromText.Sample::value).containsExactly(2.0);
    assertThat(r.longLines()).isEqualTo(1);
  }

  @Test
  void labelsAtTheLimitAreReadOnePastAreMalformed() {
    PromText.Limits lim = new PromText.Limits(1000, 2, 100);
    assertThat(PromText.parse("m{a=\"1\",b=\"2\"} 1\n", WANTED::contains, lim).samples())
        .hasSize(1);
    PromText.Result r = PromText.parse("m{a=\"1\",b=\"2\",c=\"3\"} 1\n", WANTED::contains, lim);
    assertThat(r.samples()).isEmpty();
    assertThat(r.malformed()).isEqualTo(1);
  }

  @Test
  void samplesPastTheLimitAreDropped() {
    PromText.Limits lim = new PromText.Limits(1000, 8, 2);
    PromText.Result r =
        PromText.parse("m{i=\"1\"} 1\nm{i=\"2\"} 2\nm{i=\"3\"} 3\n", WANTED::contains, lim);
    assertThat(r.samples()).hasSize(2);
    assertThat(r.dropped()).isEqualTo(1);
  }

  @Test
  void emptyAndTextWithoutNewlineAtTheEnd() {
    assertThat(parse("").samples()).isEmpty();
    assertThat(parse("m 1").samples()).hasSize(1);
  }
}
