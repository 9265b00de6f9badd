package io.infera.router.tokenize;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Converts an OpenAI Responses request into the chat request vLLM renders for it (docs/routing.md,
 * "Anthropic Messages and Responses"), following vLLM's own Responses front end in our words:
 * {@code instructions} becomes the system message; a string {@code input} one user message; input
 * items become chat messages — messages as they are (an assistant's content is its first part's
 * text), a {@code function_call} a tool call and a {@code reasoning} item the reasoning of the
 * assistant turn before it (or of a new one), a {@code function_call_output} a {@code tool}
 * message; function {@code tools} (flat in this API) become chat tools; {@code reasoning.effort}
 * reaches the template as {@code reasoning_effort}. A last message or reasoning item whose {@code
 * status} is {@code in_progress} or {@code incomplete} is continued instead of answered.
 *
 * <p>A request the router cannot render as the engine does — one that continues a stored response
 * ({@code previous_response_id}, {@code previous_response}, {@code previous_input_messages} or
 * {@code conversation}: the engine prepends history the router never sees) or holds an input item
 * of another kind — is routed by load ({@link Outcome.ByLoad}). Pure and thread-safe; the input is
 * never changed.
 */
public final class ResponsesChat {

  private ResponsesChat() {}

  /** What a Responses body renders as. */
  public sealed interface Outcome {
    /** The equivalent chat request. */
    record Chat(Map<String, Object> request) implements Outcome {}

    /**
     * Not renderable by the router.
     *
     * @param reason the tokenize-failure reason counted for it
     */
    record ByLoad(String reason) implements Outcome {}
  }

  /** The tokenize-failure reason of a request that continues a stored response or conversation. */
  public static final String STORED_CONTEXT = "stored_context";

  /**
   * Fields that put earlier turns before the input, which the router never sees: a stored response,
   * vLLM's stateless previous response and its Harmony history, a conversation.
   */
  private static final List<String> HISTORY_FIELDS =
      List.of(
          "previous_response_id", "previous_response", "previous_input_messages", "conversation");

  /** The tokenize-failure reason of an input item the router does not render. */
  public static final String UNKNOWN_ITEM = "unknown_input_item";

  /**
   * The chat request for a Responses body.
   *
   * @throws VllmChat.InvalidMessage naming the field when the body is not a Responses request
   */
  public static Outcome toChatRequest(Map<String, Object> body) throws VllmChat.InvalidMessage {
    Object instructions = body.get("instructions");
    if (instructions != null && !(instructions instanceof String)) {
      throw new VllmChat.InvalidMessage("'instructions' must be a string");
    }
    Object input = body.get("input");
    if (!(input instanceof String) && !(input instanceof List)) {
      throw new VllmChat.InvalidMessage("'input' must be a string or an array of input items");
    }
    Object tools = body.get("tools");
    if (tools != null && !(tools instanceof List)) {
      throw new VllmChat.InvalidMessage("'tools' must be an array");
    }
    for (String history : HISTORY_FIELDS) {
      if (body.get(history) != null) {
        return new Outcome.ByLoad(STORED_CONTEXT);
      }
    }
    List<Object> messages = new ArrayList<>();
    if (instructions instanceof String s && !s.isEmpty()) {
      messages.add(message("system", s));
    }
    boolean continueFinal = false;
    if (input instanceof String s) {
      messages.add(message("user", s));
    } else {
      List<?> items = (List<?>) input;
      for (int i = 0; i < items.size(); i++) {
        if (!(items.get(i) instanceof Map<?, ?> item)) {
          throw new VllmChat.InvalidMessage("input[" + i + "] is not an object");
        }
        Optional<Map<String, Object>> m = item(item, last(messages));
        if (m == null) {
          return new Outcome.ByLoad(UNKNOWN_ITEM);
        }
        m.ifPresent(messages::add);
      }
      continueFinal = continuesFinal(items);
    }
    Map<String, Object> chat = new LinkedHashMap<>();
    chat.put("messages", messages);
    if (tools != null) {
      List<Object> converted = functionTools((List<?>) tools);
      if (!converted.isEmpty()) {
        chat.put("tools", converted);
      }
    }
    if (continueFinal) {
      chat.put("add_generation_prompt", false);
      chat.put("continue_final_message", true);
    }
    // vLLM hands reasoning.effort to the template as a variable
    if (body.get("reasoning") instanceof Map<?, ?> reasoning && reasoning.get("effort") != null) {
      chat.put("chat_template_kwargs", Map.of("reasoning_effort", reasoning.get("effort")));
    }
    return new Outcome.Chat(chat);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> last(List<Object> messages) {
    return messages.isEmpty() ? null : (Map<String, Object>) messages.get(messages.size() - 1);
  }

  /**
   * One input item: a new message, empty when it merged into {@code prev} (an assistant turn), or
   * null when the router does not render its kind.
   */
  private static Optional<Map<String, Object>> item(Map<?, ?> item, Map<String, Object> prev)
      throws VllmChat.InvalidMessage {
    Map<String, Object> assistant =
        prev != null && "assistant".equals(prev.get("role")) ? prev : null;
    Object type = item.get("type");
    if ("function_call".equals(type)) {
      Map<String, Object> fn = new LinkedHashMap<>();
      fn.put("name", item.get("name"));
      fn.put("arguments", item.get("arguments"));
      Map<String, Object> call = new LinkedHashMap<>();
      call.put("id", item.get("call_id"));
      call.put("function", fn);
      call.put("type", "function");
      if (assistant != null) {
        Object calls = assistant.get("tool_calls");
        if (calls == null) {
          List<Object> list = new ArrayList<>();
          list.add(call);
          assistant.put("tool_calls", list);
          return Optional.empty();
        }
        if (calls instanceof List<?>) {
          @SuppressWarnings("unchecked")
          List<Object> list = (List<Object>) calls;
          list.add(call);
          return Optional.empty();
        }
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("role", "assistant");
      List<Object> list = new ArrayList<>();
      list.add(call);
      m.put("tool_calls", list);
      return Optional.of(m);
    }
    if ("function_call_output".equals(type)) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("role", "tool");
      m.put("content", item.get("output"));
      m.put("tool_call_id", item.get("call_id"));
      return Optional.of(m);
    }
    if ("reasoning".equals(type)) {
      String reasoning = firstText(item.get("content"));
      if (reasoning == null) {
        reasoning = firstText(item.get("summary"));
      }
      reasoning = reasoning == null ? "" : reasoning;
      if (assistant != null && assistant.get("reasoning") == null) {
        assistant.put("reasoning", reasoning);
        return Optional.empty();
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("role", "assistant");
      m.put("reasoning", reasoning);
      return Optional.of(m);
    }
    if (type != null && !"message".equals(type)) {
      return null;
    }
    if (!(item.get("role") instanceof String r)) {
      throw new VllmChat.InvalidMessage("an input message's 'role' must be a string");
    }
    if (r.equals("assistant")) {
      Object content = item.get("content");
      String text;
      if (content instanceof String s) {
        text = s;
      } else {
        String first = firstText(content);
        text = first == null ? "" : first;
      }
      if (assistant != null && assistant.get("content") == null) {
        assistant.put("content", text);
        return Optional.empty();
      }
      return Optional.of(message("assistant", text));
    }
    // user, system and developer messages reach the template as they are
    Map<String, Object> copy = new LinkedHashMap<>();
    item.forEach((k, v) -> copy.put(String.valueOf(k), v));
    return Optional.of(copy);
  }

  /** The first part's text of a content list (a part may be a bare string), or null. */
  private static String firstText(Object parts) {
    if (parts instanceof List<?> list && !list.isEmpty()) {
      Object first = list.get(0);
      if (first instanceof String s) {
        return s;
      }
      if (first instanceof Map<?, ?> p) {
        return p.get("text") instanceof String s ? s : "";
      }
    }
    return null;
  }

  /** True when the last item is a message or reasoning item still in progress or incomplete. */
  private static boolean continuesFinal(List<?> items) {
    if (items.isEmpty() || !(items.get(items.size() - 1) instanceof Map<?, ?> last)) {
      return false;
    }
    Object type = last.get("type") == null ? "message" : last.get("type");
    if (!"message".equals(type) && !"reasoning".equals(type)) {
      return false;
    }
    Object status = last.get("status");
    return "in_progress".equals(status) || "incomplete".equals(status);
  }

  /** Flat function tools as chat tools; tools of other kinds are not rendered. */
  private static List<Object> functionTools(List<?> tools) throws VllmChat.InvalidMessage {
    List<Object> out = new ArrayList<>();
    for (Object o : tools) {
      if (!(o instanceof Map<?, ?> tool)) {
        throw new VllmChat.InvalidMessage("'tools' entries must be objects");
      }
      if (!"function".equals(tool.get("type"))) {
        continue;
      }
      Map<String, Object> fn = new LinkedHashMap<>();
      tool.forEach(
          (k, v) -> {
            if (!"type".equals(k)) {
              fn.put(String.valueOf(k), v);
            }
          });
      Map<String, Object> t = new LinkedHashMap<>();
      t.put("type", "function");
      t.put("function", fn);
      out.add(t);
    }
    return out;
  }

  private static Map<String, Object> message(String role, String content) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("role", role);
    m.put("content", content);
    return m;
  }
}
