package io.infera.sim.engine;

import io.infera.router.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bodies vLLM's OpenAI server writes, field for field: streamed chunks ({@code data: …\n\n}
 * lines), the final usage chunk, whole responses and {@code /v1/models}. Pure and thread-safe.
 */
final class OpenAiFormat {

  /** The stream terminator. */
  static final String DONE = "data: [DONE]\n\n";

  private OpenAiFormat() {}

  /** What one response is about. */
  record Meta(RequestParser.Endpoint endpoint, String id, long created, String model) {

    String chunkObject() {
      return endpoint == RequestParser.Endpoint.CHAT ? "chat.completion.chunk" : "text_completion";
    }
  }

  /**
   * {@code usage} as vLLM 0.33.0 builds it: with {@code details} (its {@code
   * --enable-prompt-tokens-details}) the prefix-cache hit is {@code prompt_tokens_details:
   * {cached_tokens: N}}, 0 included (its count starts at 0, never unset); without, {@code
   * prompt_tokens_details} is null (SGLang 0.5.23 with and without {@code --enable-cache-report}
   * alike).
   */
  static Map<String, Object> usage(
      int promptTokens, int completionTokens, int cachedTokens, boolean details) {
    Map<String, Object> u = new LinkedHashMap<>();
    u.put("prompt_tokens", promptTokens);
    u.put("total_tokens", promptTokens + completionTokens);
    u.put("completion_tokens", completionTokens);
    u.put("prompt_tokens_details", details ? Map.of("cached_tokens", cachedTokens) : null);
    return u;
  }

  /**
   * One SSE event with one token's text.
   *
   * @param first a chat's first chunk also carries {@code role: assistant}
   * @param finishReason set on the chunk of the last token, else null
   */
  static String chunk(Meta meta, String text, boolean first, String finishReason) {
    Map<String, Object> choice = new LinkedHashMap<>();
    choice.put("index", 0);
    if (meta.endpoint() == RequestParser.Endpoint.CHAT) {
      Map<String, Object> delta = new LinkedHashMap<>();
      if (first) {
        delta.put("role", "assistant");
      }
      if (text != null) {
        delta.put("content", text);
      }
      choice.put("delta", delta);
    } else {
      choice.put("text", text == null ? "" : text);
    }
    choice.put("logprobs", null);
    choice.put("finish_reason", finishReason);
    if (finishReason != null) {
      choice.put("stop_reason", null);
    }
    Map<String, Object> c = head(meta, meta.chunkObject());
    c.put("choices", List.of(choice));
    return sse(c);
  }

  /**
   * The last chunk when {@code stream_options.include_usage}: no choices, the usage. vLLM writes a
   * chunk without choices with its null fields left out, so a null {@code prompt_tokens_details} is
   * absent here.
   */
  static String usageChunk(Meta meta, Map<String, Object> usage) {
    Map<String, Object> c = head(meta, meta.chunkObject());
    c.put("choices", List.of());
    Map<String, Object> present = new LinkedHashMap<>(usage);
    present.values().removeIf(java.util.Objects::isNull);
    c.put("usage", present);
    return sse(c);
  }

  /** A whole (non-streamed) response. */
  static String response(Meta meta, String text, String finishReason, Map<String, Object> usage) {
    Map<String, Object> choice = new LinkedHashMap<>();
    choice.put("index", 0);
    Map<String, Object> r;
    if (meta.endpoint() == RequestParser.Endpoint.CHAT) {
      Map<String, Object> message = new LinkedHashMap<>();
      message.put("role", "assistant");
      message.put("content", text);
      message.put("refusal", null);
      message.put("tool_calls", List.of());
      message.put("reasoning_content", null);
      choice.put("message", message);
      choice.put("logprobs", null);
      choice.put("finish_reason", finishReason);
      choice.put("stop_reason", null);
      r = head(meta, "chat.completion");
    } else {
      choice.put("text", text);
      choice.put("logprobs", null);
      choice.put("finish_reason", finishReason);
      choice.put("stop_reason", null);
      choice.put("prompt_logprobs", null);
      r = head(meta, "text_completion");
    }
    r.put("choices", List.of(choice));
    r.put("usage", usage);
    return Json.write(r);
  }

  /** {@code GET /v1/models}. */
  static String models(String model, long created, int maxModelLen) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", model);
    m.put("object", "model");
    m.put("created", created);
    m.put("owned_by", "vllm");
    m.put("root", model);
    m.put("parent", null);
    m.put("max_model_len", maxModelLen);
    List<Object> data = new ArrayList<>();
    data.add(m);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("object", "list");
    out.put("data", data);
    return Json.write(out);
  }

  /** {@code POST /tokenize}. */
  static String tokenized(int[] ids, int maxModelLen) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("count", ids.length);
    out.put("max_model_len", maxModelLen);
    out.put("tokens", ids);
    out.put("token_strs", null);
    return Json.write(out);
  }

  private static Map<String, Object> head(Meta meta, String object) {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("id", meta.id());
    c.put("object", object);
    c.put("created", meta.created());
    c.put("model", meta.model());
    return c;
  }

  private static String sse(Map<String, Object> body) {
    StringBuilder sb = new StringBuilder(256);
    sb.append("data: ");
    Json.write(body, sb);
    return sb.append("\n\n").toString();
  }
}
