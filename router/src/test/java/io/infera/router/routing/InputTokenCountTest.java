package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.json.Json;
import io.infera.router.json.JsonException;
import io.infera.router.policy.InputTokens;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Input tokens for decode input demand: counts, estimates, media, {@code n}. */
class InputTokenCountTest {

  @SuppressWarnings("unchecked")
  private static Map<String, Object> body(String json) {
    try {
      return (Map<String, Object>) Json.parse(json.getBytes(StandardCharsets.UTF_8));
    } catch (JsonException e) {
      throw new IllegalArgumentException(e);
    }
  }

  /** As the analysis counts: media found by {@link MediaRefs}. */
  private static InputTokens count(Map<String, Object> body, long tokens) {
    return InputTokenCount.of(body, tokens, MediaRefs.of(body).multimodal());
  }

  @Test
  void aTokenizedTextRequestIsExact() {
    InputTokens in = count(body("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"), 42);
    assertThat(in).isEqualTo(new InputTokens(42, 1, true, false));
    assertThat(in.exact()).isTrue();
  }

  @Test
  void aTokenizedRequestWithAnImageIsAnEstimate() {
    InputTokens in =
        count(
            body(
                "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"x\"},"
                    + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://a/b.png\"}}]}]}"),
            300);
    assertThat(in.tokens()).isEqualTo(300);
    assertThat(in.exact()).isFalse();
    assertThat(in.label()).isEqualTo("estimated");
  }

  @ParameterizedTest
  @CsvSource({
    "'{\"images\":[\"abc\"],\"prompt\":\"x\"}', true",
    "'{\"images\":[],\"prompt\":\"x\"}', false",
    "'{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_audio\",\"input_audio\":{}}]}]}', true",
    "'{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image\",\"source\":{}}]}]}', true",
    "'{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_image\",\"image_url\":\"u\"}]}]}', true",
    "'{\"messages\":[{\"role\":\"user\",\"content\":\"image_url\"}]}', false",
  })
  void mediaIsFoundInEveryShape(String json, boolean media) {
    // The analysis finds media with MediaRefs and hands the verdict to the count.
    assertThat(MediaRefs.of(body(json)).multimodal()).isEqualTo(media);
    assertThat(count(body(json), 10).exact()).isEqualTo(!media);
  }

  @Test
  void withoutATokenizerTheEstimateIsStringBytesOverFour() {
    // "abcdefgh" (8) + "user" (4) + "system" (6) + "You are" (7) = 25 bytes -> 6 tokens
    InputTokens in =
        count(
            body(
                "{\"model\":\"a-very-long-model-name\",\"messages\":[{\"role\":\"user\","
                    + "\"content\":\"abcdefgh\"},{\"role\":\"system\",\"content\":\"You are\"}]}"),
            -1);
    assertThat(in).isEqualTo(new InputTokens(6, 1, false, false));
  }

  @Test
  void theEstimateSkipsDataUrlsAndDataFields() {
    String big = "A".repeat(40_000);
    InputTokens in =
        count(
            body(
                "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"12345678\"},"
                    + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,"
                    + big
                    + "\"}},{\"type\":\"input_audio\",\"input_audio\":{\"data\":\""
                    + big
                    + "\",\"format\":\"wav\"}}]}]}"),
            -1);
    // user(4) text(4) 12345678(8) image_url(9) input_audio(11) wav(3) = 39 bytes -> 9 tokens
    assertThat(in.tokens()).isEqualTo(9);
    assertThat(in.multimodal()).isTrue();
  }

  @Test
  void multiByteCharactersCountTheirUtf8Bytes() {
    // "é" 2 bytes, "€" 3, "😀" 4 (a surrogate pair), lone surrogate 3: 12 bytes -> 3 tokens
    assertThat(count(body("{\"prompt\":\"é€😀\\ud800\"}"), -1).tokens()).isEqualTo(3);
  }

  @ParameterizedTest
  @CsvSource({
    "'', 1",
    "'\"n\":3,', 3",
    "'\"n\":1,', 1",
    "'\"n\":0,', 1",
    "'\"n\":-2,', 1",
    "'\"n\":2.5,', 1",
    "'\"n\":\"4\",', 1",
    "'\"n\":null,', 1",
    "'\"n\":true,', 1",
    "'\"n\":[2],', 1",
    "'\"n\":99999999999,', 2147483647",
  })
  void nMultipliesAndAnInvalidNCountsAsOne(String field, int n) {
    InputTokens in = count(body("{" + field + "\"prompt\":\"x\"}"), 10);
    assertThat(in.n()).isEqualTo(n);
    assertThat(in.demand()).isEqualTo(Math.min(10L * n, InputTokens.MAX_DEMAND));
  }

  @Test
  void aBodyWithoutPromptFieldsEstimatesZero() {
    assertThat(count(body("{\"model\":\"m\"}"), -1).tokens()).isZero();
  }

  @Property(tries = 300)
  void anyBodyGivesANonNegativeEstimateBoundedByItsStrings(
      @ForAll("bodies") Map<String, Object> body) {
    InputTokens in = count(body, -1);
    assertThat(in.tokens()).isGreaterThanOrEqualTo(0);
    assertThat(in.n()).isGreaterThanOrEqualTo(1);
    assertThat(in.tokens() * 4).isLessThanOrEqualTo(allStringBytes(body));
    assertThat(in.exact()).isFalse();
  }

  @Property(tries = 200)
  void utf8LengthMatchesTheJdk(@ForAll String s) {
    long expected = s.getBytes(StandardCharsets.UTF_8).length;
    assertThat(InputTokenCount.utf8Length(s)).isEqualTo(expected);
  }

  private static long allStringBytes(Object v) {
    if (v instanceof String s) {
      return s.getBytes(StandardCharsets.UTF_8).length;
    }
    long n = 0;
    if (v instanceof Map<?, ?> m) {
      for (Object o : m.values()) {
        n += allStringBytes(o);
      }
    } else if (v instanceof List<?> l) {
      for (Object o : l) {
        n += allStringBytes(o);
      }
    }
    return n;
  }

  @Provide
  Arbitrary<Map<String, Object>> bodies() {
    Arbitrary<Object> leaf =
        Arbitraries.oneOf(
            Arbitraries.strings().ofMaxLength(40).map(s -> (Object) s),
            Arbitraries.strings().ofMaxLength(20).map(s -> (Object) ("data:" + s)),
            Arbitraries.longs().map(l -> (Object) l),
            Arbitraries.of(true, false).map(b -> (Object) b),
            Arbitraries.just(null));
    Arbitrary<Object> tree =
        Arbitraries.recursive(
            () -> leaf,
            inner ->
                Arbitraries.oneOf(
                    inner.list().ofMaxSize(4).map(l -> (Object) new ArrayList<>(l)),
                    Arbitraries.maps(
                            Arbitraries.of("type", "text", "data", "image_url", "content", "url"),
                            inner)
                        .ofMaxSize(4)
                        .map(m -> (Object) new LinkedHashMap<>(m))),
            0,
            4);
    return Arbitraries.maps(
            Arbitraries.of("messages", "prompt", "tools", "input", "n", "images", "model", "data"),
            tree)
        .ofMaxSize(5)
        .map(LinkedHashMap::new);
  }
}
