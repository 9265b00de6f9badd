package io.infera.sim.engine;

import io.infera.router.json.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bodies vLLM's Anthropic front end writes for {@code /v1/messages}: a whole message, or the
 * named SSE events of a stream ({@code message_start}, one text block's {@code
 * content_block_start}/{@code _delta}/{@code _stop}, {@code message_delta} with the stop reason and
 * usage, {@code message_stop}). Usage splits the prompt as Anthropic does: {@code input_tokens} are
 * the uncached ones, {@code cache_read_input_tokens} the cached ones (with the engine's prompt
 * tokens details on). Pure and thread-safe.
 */
final class AnthropicFormat {

  private AnthropicFormat() {}

  /** Anthropic's stop reason for the engine's finish reason. */
  static String stopReason(String finishReason) {
    return "length".equals(finishReason) ? "max_tokens" : "end_turn";
  }

  static Map<String, Object> usage(
      int promptTokens, int outputTokens, int cachedTokens, boolean details) {
    Map<String, Object> u = new LinkedHashMap<>();
    u.put("input_tokens", details ? promptTokens - cachedTokens : promptTokens);
    u.put("output_tokens", outputTokens);
    if (details) {
      u.put("cache_read_input_tokens", cachedTokens);
      u.put("cache_creation_input_tokens", 0);
    }
    return u;
  }

  /** The whole (non-streamed) message. */
  static String message(
      OpenAiFormat.Meta meta, String text, String finishReason, Map<String, Object> usage) {
    Map<String, Object> m = head(meta);
    m.put("content", List.of(Map.of("type", "text", "text", text)));
    m.put("stop_reason", stopReason(finishReason));
    m.put("stop_sequence", null);
    m.put("usage", usage);
    return Json.write(m);
  }

  /** The stream's opening: {@code message_start} and the text block's start. */
  static String start(OpenAiFormat.Meta meta, int promptTokens) {
    Map<String, Object> m = head(meta);
    m.put("content", List.of());
    m.put("stop_reason", null);
    m.put("stop_sequence", null);
    m.put("usage", Map.of("input_tokens", promptTokens, "output_tokens", 0));
    Map<String, Object> start = new LinkedHashMap<>();
    start.put("type", "message_start");
    start.put("message", m);
    Map<String, Object> block = new LinkedHashMap<>();
    block.put("type", "content_block_start");
    block.put("index", 0);
    block.put("content_block", Map.of("type", "text", "text", ""));
    return event("message_start", start) + event("content_block_start", block);
  }

  /** One token's text. */
  static String delta(String text) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("type", "content_block_delta");
    d.put("index", 0);
    d.put("delta", Map.of("type", "text_delta", "text", text));
    return event("content_block_delta", d);
  }

  /** The stream's end: the block's stop, the stop reason with usage, {@code message_stop}. */
  static String end(String finishReason, Map<String, Object> usage) {
    Map<String, Object> stop = new LinkedHashMap<>();
    stop.put("type", "content_block_stop");
    stop.put("index", 0);
    Map<String, Object> delta = new LinkedHashMap<>();
    delta.put("stop_reason", stopReason(finishReason));
    delta.put("stop_sequence", null);
    Map<String, Object> md = new LinkedHashMap<>();
    md.put("type", "message_delta");
    md.put("delta", delta);
    md.put("usage", usage);
    return event("content_block_stop", stop)
        + event("message_delta", md)
        + event("message_stop", Map.of("type", "message_stop"));
  }

  /** An error event ending a stream the engine gave up on. */
  static String error(String type, String message) {
    Map<String, Object> err = new LinkedHashMap<>();
    err.put("type", type);
    err.put("message", message);
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("type", "error");
    e.put("error", err);
    return event("error", e);
  }

  private static Map<String, Object> head(OpenAiFormat.Meta meta) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", meta.id());
    m.put("type", "message");
    m.put("role", "assistant");
    m.put("model", meta.model());
    return m;
  }

  private static String event(String name, Map<String, Object> data) {
    StringBuilder sb = new StringBuilder(128);
    sb.append("event: ").append(name).append("\ndata: ");
    Json.write(data, sb);
    return sb.append("\n\n").toString();
  }
}
