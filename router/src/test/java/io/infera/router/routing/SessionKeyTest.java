package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.routing.SessionKey.Extraction;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** Session keys from a header or {@code prompt_cache_key}: sources, bounds, hostile values. */
class SessionKeyTest {

  private static Map<String, Object> body(Object key) {
    Map<String, Object> b = new HashMap<>();
    b.put("messages", List.of(Map.of("role", "user", "content", "the prompt text")));
    b.put(SessionKey.BODY_FIELD, key);
    return b;
  }

  @Test
  void theHeaderWinsOverTheBodyAndBothSpellingsOfOneKeyAreOneSession() {
    SessionKey.Extracted h = SessionKey.of("conv-1", body("other"), 256);
    assertThat(h.outcome()).isEqualTo(Extraction.FOUND);
    assertThat(h.key().source()).isEqualTo(SessionKey.Source.HEADER);
    SessionKey.Extracted b = SessionKey.of(null, body("conv-1"), 256);
    assertThat(b.key().source()).isEqualTo(SessionKey.Source.BODY);
    assertThat(b.key().hash()).isEqualTo(h.key().hash());
    assertThat(SessionKey.of(null, body("conv-2"), 256).key().hash()).isNotEqualTo(h.key().hash());
  }

  @Test
  void thePromptIsNeverAKey() {
    Map<String, Object> b = new HashMap<>();
    b.put("messages", List.of(Map.of("role", "user", "content", "conv-1")));
    b.put("prompt", "conv-1");
    b.put("user", "conv-1");
    assertThat(SessionKey.of(null, b, 256))
        .isEqualTo(new SessionKey.Extracted(null, Extraction.ABSENT));
    assertThat(SessionKey.of(null, null, 256).outcome()).isEqualTo(Extraction.ABSENT);
  }

  @Test
  void unusableValuesGiveNoKeyAndSayWhy() {
    assertThat(SessionKey.of(null, body(null), 256).outcome()).isEqualTo(Extraction.ABSENT);
    assertThat(SessionKey.of(null, body(42L), 256).outcome()).isEqualTo(Extraction.NOT_STRING);
    assertThat(SessionKey.of(null, body(List.of("a")), 256).outcome())
        .isEqualTo(Extraction.NOT_STRING);
    assertThat(SessionKey.of(null, body(Map.of("k", "v")), 256).outcome())
        .isEqualTo(Extraction.NOT_STRING);
    assertThat(SessionKey.of(null, body(true), 256).outcome()).isEqualTo(Extraction.NOT_STRING);
    assertThat(SessionKey.of(null, body(""), 256).outcome()).isEqualTo(Extraction.EMPTY);
    assertThat(SessionKey.of(null, body(" \t\n"), 256).outcome()).isEqualTo(Extraction.EMPTY);
    assertThat(SessionKey.of("", body("fine"), 256).outcome()).isEqualTo(Extraction.EMPTY);
    // An unusable header never falls through to the body.
    assertThat(SessionKey.of("x".repeat(257), body("fine"), 256).key()).isNull();
  }

  @Test
  void theLengthBudgetHoldsAtItsLimitInUtf8BytesAndRefusesPastIt() {
    assertThat(SessionKey.of(null, body("k".repeat(256)), 256).outcome())
        .isEqualTo(Extraction.FOUND);
    assertThat(SessionKey.of(null, body("k".repeat(257)), 256).outcome())
        .isEqualTo(Extraction.TOO_LONG);
    // 'é' is 2 UTF-8 bytes: 128 fit in 256 bytes, 129 do not (though 129 chars < 256).
    assertThat(SessionKey.of(null, body("é".repeat(128)), 256).outcome())
        .isEqualTo(Extraction.FOUND);
    assertThat(SessionKey.of(null, body("é".repeat(129)), 256).outcome())
        .isEqualTo(Extraction.TOO_LONG);
    // A huge hostile value is refused on its length, without being encoded.
    assertThat(SessionKey.of("a".repeat(10_000_000), null, 256).outcome())
        .isEqualTo(Extraction.TOO_LONG);
  }

  @Test
  void unpairedSurrogatesAndControlCharactersAreJustBytes() {
    SessionKey.Extracted e = SessionKey.of(null, body("\ud800x\u0000\u001b[31m"), 256);
    assertThat(e.outcome()).isEqualTo(Extraction.FOUND);
  }

  @Property(tries = 2000)
  void anyStringGivesAKeyExactlyWhenNonBlankAndWithinTheBudget(
      @ForAll String s, @ForAll @IntRange(min = 1, max = 64) int max) {
    SessionKey.Extracted e = SessionKey.of(null, body(s), max);
    boolean fits = s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length <= max;
    if (fits && !s.isBlank()) {
      assertThat(e.outcome()).isEqualTo(Extraction.FOUND);
      assertThat(e.key().hash()).isEqualTo(SessionKey.of(s, null, max).key().hash());
    } else {
      assertThat(e.key()).isNull();
      assertThat(e.outcome()).isIn(Extraction.EMPTY, Extraction.TOO_LONG);
    }
  }
}
