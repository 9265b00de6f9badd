package io.infera.router.routing;

import io.infera.router.policy.InputTokens;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A request's input tokens for decode input demand (docs/routing.md, "Decode input demand"): the
 * tokenizer's count when there is one, exact unless the request carries images or audio (the engine
 * expands their placeholders to a count the router cannot know); without one, an estimate of the
 * prompt's string bytes / 4, skipping inline binary payloads ({@code data:} URLs and {@code data}
 * fields). {@code n} multiplies the demand; an {@code n} that is not an integer >= 1 counts as 1.
 * Called on the analysis pool (it walks the body), never on an event loop.
 */
public final class InputTokenCount {

  /** The body fields whose strings make up the prompt (OpenAI, Anthropic, Responses shapes). */
  static final Set<String> PROMPT_FIELDS =
      Set.of("messages", "prompt", "tools", "documents", "system", "input", "instructions");

  private InputTokenCount() {}

  /**
   * @param body the parsed request
   * @param tokens the prompt's token count (router or engine), or -1 when unknown
   * @param media whether the request carries images, audio or video ({@link MediaRefs}, found by
   *     the analysis): the count is then an estimate
   */
  public static InputTokens of(Map<String, Object> body, long tokens, boolean media) {
    int n = n(body.get("n"));
    if (tokens >= 0) {
      return new InputTokens(tokens, n, true, media);
    }
    long bytes = 0;
    for (String f : PROMPT_FIELDS) {
      bytes = textBytes(body.get(f), bytes);
    }
    return new InputTokens(bytes / 4, n, false, media);
  }

  /** {@code n} as the engines read it, or 1 when it is absent or not an integer >= 1. */
  static int n(Object v) {
    if (v instanceof Long l && l >= 1) {
      return (int) Math.min(l, Integer.MAX_VALUE);
    }
    if (v instanceof Integer i && i >= 1) {
      return i;
    }
    return 1;
  }

  /**
   * Adds the UTF-8 bytes of every string under {@code v} to {@code n}, skipping {@code data} keys
   * and strings that are {@code data:} URLs. Nesting is bounded by the JSON parser's depth limit.
   */
  static long textBytes(Object v, long n) {
    if (v instanceof String s) {
      return isDataUrl(s) ? n : n + utf8Length(s);
    }
    if (v instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!"data".equals(e.getKey())) {
          n = textBytes(e.getValue(), n);
        }
      }
      return n;
    }
    if (v instanceof List<?> l) {
      for (Object o : l) {
        n = textBytes(o, n);
      }
    }
    return n;
  }

  static boolean isDataUrl(String s) {
    return s.regionMatches(true, 0, "data:", 0, 5);
  }

  /** UTF-8 length without encoding (a lone surrogate counts as the 3 bytes of its replacement). */
  static long utf8Length(String s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }
}
