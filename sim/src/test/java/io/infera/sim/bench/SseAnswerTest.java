package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.json.JsonException;
import java.io.BufferedReader;
import java.io.StringReader;
import java.util.List;
import java.util.function.DoubleSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SseAnswerTest {

  /** A clock that reads 10, 20, 30, … ms, one step per read. */
  static final class Ticks implements DoubleSupplier {
    int reads;

    @Override
    public double getAsDouble() {
      return 10.0 * ++reads;
    }
  }

  static SseAnswer parse(Ticks clock, String... lines) throws Exception {
    return SseAnswer.read(new BufferedReader(new StringReader(String.join("\n", lines))), clock);
  }

  static String text(String t) {
    return "data: {\"choices\":[{\"index\":0,\"text\":\"" + t + "\"}]}";
  }

  static String delta(String t) {
    return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + t + "\"}}]}";
  }

  static final String USAGE =
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":3,"
          + "\"prompt_tokens_details\":{\"cached_tokens\":32}}}";

  static Stream<Arguments> streams() {
    return Stream.of(
        // name, lines, text, first ms, itl, prompt, cached, completion
        Arguments.of(
            "completions",
            List.of(text("a"), "", text("b"), "", text("c"), "", USAGE, "", "data: [DONE]", ""),
            "abc",
            10.0,
            List.of(10.0, 10.0),
            40,
            32,
            3),
        Arguments.of(
            "chat: the role-only first delta carries no text",
            List.of(
                "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}",
                delta("Hel"),
                delta("lo"),
                USAGE,
                "data: [DONE]"),
            "Hello",
            10.0,
            List.of(10.0),
            40,
            32,
            3),
        Arguments.of(
            "comments, event lines and data without the space are skipped",
            List.of(
                ": keep-alive",
                "event: message",
                "id: 7",
                "data:" + text("x").substring(6),
                text("a")),
            "a",
            10.0,
            List.of(),
            -1,
            0,
            0),
        Arguments.of(
            "JSON that is not an object is skipped",
            List.of("data: 42", "data: [1,2]", "data: \"s\"", "data: null", text("a")),
            "a",
            10.0,
            List.of(),
            -1,
            0,
            0),
        Arguments.of(
            "empty text chunks are not tokens",
            List.of(text(""), text("a"), text(""), text("b")),
            "ab",
            10.0,
            List.of(10.0),
            -1,
            0,
            0),
        Arguments.of(
            "truncated before usage: what arrived, usage unknown",
            List.of(text("a"), text("b")),
            "ab",
            10.0,
            List.of(10.0),
            -1,
            0,
            0),
        Arguments.of("nothing but [DONE]", List.of("data: [DONE]"), "", -1.0, List.of(), -1, 0, 0),
        Arguments.of(
            "usage without details or with non-numbers",
            List.of(
                "data: {\"usage\":{\"prompt_tokens\":\"40\",\"completion_tokens\":2}}", text("a")),
            "a",
            10.0,
            List.of(),
            0,
            0,
            2),
        Arguments.of(
            "details null (an engine without the flag) or without cached_tokens: 0 cached",
            List.of(
                "data: {\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":2,"
                    + "\"prompt_tokens_details\":null}}",
                "data: {\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":2,"
                    + "\"prompt_tokens_details\":{\"cached_tokens\":null}}}",
                "data: {\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":2,"
                    + "\"prompt_tokens_details\":{}}}",
                text("a")),
            "a",
            10.0,
            List.of(),
            40,
            0,
            2),
        Arguments.of(
            "choices that are not a list of objects carry no text",
            List.of(
                "data: {\"choices\":{}}",
                "data: {\"choices\":[]}",
                "data: {\"choices\":[7]}",
                "data: {\"choices\":[{\"text\":5}]}"),
            "",
            -1.0,
            List.of(),
            -1,
            0,
            0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("streams")
  void readsAStream(
      String name,
      List<String> lines,
      String text,
      double firstMs,
      List<Double> itl,
      int prompt,
      int cached,
      int completion)
      throws Exception {
    Ticks clock = new Ticks();
    SseAnswer a = parse(clock, lines.toArray(String[]::new));
    assertThat(a.text()).isEqualTo(text);
    assertThat(a.firstTokenMs()).isEqualTo(firstMs);
    assertThat(a.itlMs()).isEqualTo(itl);
    assertThat(a.promptTokens()).isEqualTo(prompt);
    assertThat(a.cachedTokens()).isEqualTo(cached);
    assertThat(a.completionTokens()).isEqualTo(completion);
    // The clock is read once per text chunk, so parsing never costs a request time.
    assertThat(clock.reads).isEqualTo(text.isEmpty() ? 0 : 1 + itl.size());
  }

  @ParameterizedTest
  @MethodSource("malformed")
  void aDataLineWithInvalidJsonFailsTheAnswer(String line) {
    Ticks clock = new Ticks();
    assertThatThrownBy(() -> parse(clock, text("a"), line, text("b")))
        .isInstanceOf(JsonException.class);
  }

  static Stream<String> malformed() {
    return Stream.of(
        // A chunk cut short by a dropped connection, garbage, an empty payload, two values.
        "data: {\"choices\":[{\"text\":\"a", "data: not json", "data: ", "data: {} {}");
  }

  @Test
  void accumulatesLineByLine() throws Exception {
    Ticks clock = new Ticks();
    SseAnswer a = new SseAnswer(clock);
    a.accept(text("a"));
    assertThat(a.firstTokenMs()).isEqualTo(10.0);
    assertThat(a.promptTokens()).isEqualTo(-1);
    a.accept(text("b"));
    a.accept(USAGE);
    assertThat(a.text()).isEqualTo("ab");
    assertThat(a.itlMs()).containsExactly(10.0);
    assertThat(a.promptTokens()).isEqualTo(40);
  }
}
