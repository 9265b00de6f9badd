package io.infera.sim.engine;

import io.infera.router.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bodies vLLM's Responses front end writes for {@code /v1/responses} (text output only): a
 * whole {@code response} object, or the typed SSE events of a stream, each with its {@code
 * sequence_number}: {@code response.created}, {@code response.in_progress}, the message item's and
 * its text part's {@code added}, one {@code response.output_text.delta} per token, the matching
 * {@code done} events and {@code response.completed}. A response cut by {@code max_output_tokens}
 * is {@code incomplete}. Not thread-safe per stream (it counts sequence numbers); one per request.
 */
final class ResponsesFormat {

  private final OpenAiFormat.Meta meta;
  private final String itemId;
  private final Integer maxOutputTokens;
  private int sequence;

  ResponsesFormat(OpenAiFormat.Meta meta, Integer maxOutputTokens) {
    this.meta = meta;
    this.itemId = "msg_" + meta.id().substring(meta.id().indexOf('_') + 1);
    this.maxOutputTokens = maxOutputTokens;
  }

  static Map<String, Object> usage(
      int promptTokens, int outputTokens, int cachedTokens, boolean details) {
    Map<String, Object> u = new LinkedHashMap<>();
    u.put("input_tokens", promptTokens);
    u.put("input_tokens_details", Map.of("cached_tokens", details ? cachedTokens : 0));
    u.put("output_tokens", outputTokens);
    u.put("output_tokens_details", Map.of("reasoning_tokens", 0));
    u.put("total_tokens", promptTokens + outputTokens);
    return u;
  }

  /** The whole (non-streamed) response. */
  String whole(String text, String finishReason, Map<String, Object> usage) {
    return Json.write(
        response(status(finishReason), finishReason, List.of(item(text, true)), usage));
  }

  /** The stream's opening events. */
  String start() {
    Map<String, Object> inProgress = response("in_progress", null, List.of(), null);
    Map<String, Object> added = new LinkedHashMap<>();
    added.put("output_index", 0);
    added.put("item", item(null, false));
    Map<String, Object> part = new LinkedHashMap<>();
    part.put("item_id", itemId);
    part.put("output_index", 0);
    part.put("content_index", 0);
    part.put("part", textPart(""));
    return event("response.created", Map.of("response", inProgress))
        + event("response.in_progress", Map.of("response", inProgress))
        + event("response.output_item.added", added)
        + event("response.content_part.added", part);
  }

  /** One token's text. */
  String delta(String text) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("item_id", itemId);
    d.put("output_index", 0);
    d.put("content_index", 0);
    d.put("delta", text);
    d.put("logprobs", List.of());
    return event("response.output_text.delta", d);
  }

  /** The closing events, the last one the whole response. */
  String end(String text, String finishReason, Map<String, Object> usage) {
    Map<String, Object> done = new LinkedHashMap<>();
    done.put("item_id", itemId);
    done.put("output_index", 0);
    done.put("content_index", 0);
    done.put("text", text);
    done.put("logprobs", List.of());
    Map<String, Object> partDone = new LinkedHashMap<>();
    partDone.put("item_id", itemId);
    partDone.put("output_index", 0);
    partDone.put("content_index", 0);
    partDone.put("part", textPart(text));
    Map<String, Object> itemDone = new LinkedHashMap<>();
    itemDone.put("output_index", 0);
    itemDone.put("item", item(text, true));
    String status = status(finishReason);
    Map<String, Object> last = response(status, finishReason, List.of(item(text, true)), usage);
    return event("response.output_text.done", done)
        + event("response.content_part.done", partDone)
        + event("response.output_item.done", itemDone)
        + event(
            "incomplete".equals(status) ? "response.incomplete" : "response.completed",
            Map.of("response", last));
  }

  private static String status(String finishReason) {
    return "length".equals(finishReason) ? "incomplete" : "completed";
  }

  private Map<String, Object> response(
      String status, String finishReason, List<Object> output, Map<String, Object> usage) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("id", meta.id());
    r.put("object", "response");
    r.put("created_at", meta.created());
    r.put("status", status);
    r.put("background", false);
    r.put("error", null);
    r.put(
        "incomplete_details",
        "length".equals(finishReason) ? Map.of("reason", "max_output_tokens") : null);
    r.put("instructions", null);
    r.put("max_output_tokens", maxOutputTokens);
    r.put("metadata", null);
    r.put("model", meta.model());
    r.put("output", output);
    r.put("parallel_tool_calls", true);
    r.put("previous_response_id", null);
    r.put("reasoning", null);
    r.put("service_tier", "auto");
    r.put("store", false);
    r.put("temperature", 1.0);
    r.put("text", Map.of("format", Map.of("type", "text")));
    r.put("tool_choice", "auto");
    r.put("tools", List.of());
    r.put("top_p", 1.0);
    r.put("truncation", "disabled");
    r.put("usage", usage);
    r.put("user", null);
    return r;
  }

  private Map<String, Object> item(String text, boolean done) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", itemId);
    m.put("type", "message");
    m.put("role", "assistant");
    m.put("status", done ? "completed" : "in_progress");
    List<Object> content = new ArrayList<>();
    if (text != null) {
      content.add(textPart(text));
    }
    m.put("content", content);
    return m;
  }

  private static Map<String, Object> textPart(String text) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("type", "output_text");
    p.put("text", text);
    p.put("annotations", List.of());
    p.put("logprobs", List.of());
    return p;
  }

  private String event(String type, Map<String, Object> fields) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("type", type);
    data.put("sequence_number", sequence++);
    data.putAll(fields);
    StringBuilder sb = new StringBuilder(160);
    sb.append("event: ").append(type).append("\ndata: ");
    Json.write(data, sb);
    return sb.append("\n\n").toString();
  }
}
