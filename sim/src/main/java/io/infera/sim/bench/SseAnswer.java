package io.infera.sim.bench;

import io.infera.router.json.Json;
import io.infera.router.json.JsonException;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleSupplier;

/**
 * One streamed OpenAI answer (server-sent events of {@code /v1/completions} or {@code
 * /v1/chat/completions}), read line by line: when the first text arrived (TTFT), the gaps between
 * later text chunks (ITL), the text, and the usage chunk's token counts.
 *
 * <p>Pure apart from the injected clock, which is read once per non-empty text chunk, after the
 * chunk is parsed. Lines other than {@code data: {…}} (comments, {@code event:}, blank separators,
 * {@code data: [DONE]}) and JSON values that are not objects are skipped. A stream that ends early
 * keeps what arrived (the caller sees fewer tokens, and no usage). Not thread-safe.
 */
public final class SseAnswer {

  private final DoubleSupplier clockMs;
  private final List<Double> itlMs = new ArrayList<>();
  private final StringBuilder text = new StringBuilder();
  private double firstMs = -1;
  private double lastMs = -1;
  private int promptTokens = -1;
  private int cachedTokens;
  private int completionTokens;

  /**
   * @param clockMs the current time in ms on the caller's clock
   */
  public SseAnswer(DoubleSupplier clockMs) {
    this.clockMs = clockMs;
  }

  /** Reads {@code in} to its end. */
  public static SseAnswer read(BufferedReader in, DoubleSupplier clockMs)
      throws IOException, JsonException {
    SseAnswer answer = new SseAnswer(clockMs);
    String line;
    while ((line = in.readLine()) != null) {
      answer.accept(line);
    }
    return answer;
  }

  /**
   * Takes one line of the stream (without its line terminator).
   *
   * @throws JsonException when a {@code data:} line carries invalid JSON (a chunk cut short)
   */
  public void accept(String line) throws JsonException {
    if (!line.startsWith("data: ") || line.equals("data: [DONE]")) {
      return;
    }
    if (!(Json.parse(line.substring(6)) instanceof Map<?, ?> chunk)) {
      return;
    }
    if (chunk.get("usage") instanceof Map<?, ?> u) {
      promptTokens = intOf(u.get("prompt_tokens"));
      completionTokens = intOf(u.get("completion_tokens"));
      if (u.get("prompt_tokens_details") instanceof Map<?, ?> d) {
        cachedTokens = intOf(d.get("cached_tokens"));
      }
    }
    String t = textOf(chunk);
    if (t != null && !t.isEmpty()) {
      double now = clockMs.getAsDouble();
      if (firstMs < 0) {
        firstMs = now;
      } else {
        itlMs.add(now - lastMs);
      }
      lastMs = now;
      text.append(t);
    }
  }

  /** When the first non-empty text chunk arrived, or -1 if none did. */
  public double firstTokenMs() {
    return firstMs;
  }

  /** Gaps between consecutive non-empty text chunks, in ms. */
  public List<Double> itlMs() {
    return List.copyOf(itlMs);
  }

  /** The answer's text so far. */
  public String text() {
    return text.toString();
  }

  /** The usage chunk's {@code prompt_tokens}, or -1 before (or without) a usage chunk. */
  public int promptTokens() {
    return promptTokens;
  }

  /** The usage chunk's {@code prompt_tokens_details.cached_tokens}, 0 without. */
  public int cachedTokens() {
    return cachedTokens;
  }

  /** The usage chunk's {@code completion_tokens}, 0 without. */
  public int completionTokens() {
    return completionTokens;
  }

  /** The text of a completions ({@code choices[0].text}) or chat ({@code delta.content}) chunk. */
  private static String textOf(Map<?, ?> chunk) {
    if (!(chunk.get("choices") instanceof List<?> choices)
        || choices.isEmpty()
        || !(choices.get(0) instanceof Map<?, ?> c0)) {
      return null;
    }
    if (c0.get("text") instanceof String t) {
      return t;
    }
    if (c0.get("delta") instanceof Map<?, ?> delta && delta.get("content") instanceof String t) {
      return t;
    }
    return null;
  }

  /** A usage count; 0 when absent or not a number. */
  private static int intOf(Object o) {
    return o instanceof Number n ? n.intValue() : 0;
  }
}
