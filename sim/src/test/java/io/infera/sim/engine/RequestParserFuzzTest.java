package io.infera.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.sim.engine.RequestParser.Endpoint;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Request bodies are external input: whatever arrives, the parser answers with a request or an
 * {@link ApiError}, never with another exception.
 */
class RequestParserFuzzTest {

  private static final String VALID =
      "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
          + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}],"
          + "\"prompt\":[1,2,3],\"max_tokens\":4,\"stream\":true,"
          + "\"stream_options\":{\"include_usage\":true},\"tools\":[]}";

  private static RequestParser parser() {
    return new RequestParser(SharedTokenizer.qwen3(), "m", 4096);
  }

  @Property(tries = 400)
  void mutatedBodiesNeverEscapeAsUnexpectedExceptions(@ForAll("mutated") String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    RequestParser p = parser();
    for (Endpoint e : Endpoint.values()) {
      assertThat(outcome(() -> p.parse(e, bytes))).isTrue();
    }
    assertThat(outcome(() -> p.tokenize(bytes))).isTrue();
  }

  @Property(tries = 200)
  void randomBytesAreBadRequests(@ForAll byte[] body) {
    RequestParser p = parser();
    assertThat(outcome(() -> p.parse(Endpoint.CHAT, body))).isTrue();
  }

  @Provide
  Arbitrary<String> mutated() {
    Arbitrary<Integer> at = Arbitraries.integers().between(0, VALID.length() - 1);
    Arbitrary<Character> ch = Arbitraries.of('{', '}', '[', ']', '"', ',', ':', '1', '-', 'x', ' ');
    Arbitrary<Integer> cut = Arbitraries.integers().between(1, 5);
    return Combinators.combine(at, ch, cut, Arbitraries.integers().between(0, 2))
        .as(
            (i, c, n, op) ->
                switch (op) {
                  case 0 -> VALID.substring(0, i) + c + VALID.substring(i);
                  case 1 ->
                      VALID.substring(0, i) + VALID.substring(Math.min(VALID.length(), i + n));
                  default -> VALID.substring(0, i) + c + VALID.substring(i + 1);
                });
  }

  private interface Call {
    void run() throws ApiError;
  }

  /** True when the call returned or threw an {@link ApiError} with a 4xx status. */
  private static boolean outcome(Call c) {
    try {
      c.run();
      return true;
    } catch (ApiError e) {
      return e.status() >= 400 && e.status() < 500;
    }
  }
}
