package io.infera.router.tokenize;

import io.infera.router.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts an Anthropic Messages request into the OpenAI chat request vLLM renders for it, so the
 * router renders {@code /v1/messages} with the same chat template as the equivalent {@code
 * /v1/chat/completions} (docs/routing.md, "Anthropic Messages and Responses"). The conversion
 * follows vLLM's own Anthropic front end, in our words:
 *
 * <ul>
 *   <li>the top-level {@code system} (a string, or text blocks concatenated without a separator,
 *       blocks that begin with Claude Code's {@code x-anthropic-billing-header} dropped) becomes
 *       the leading system message;
 *   <li>{@code system} messages at the start of {@code messages} join it (separated by a blank
 *       line); later ones stay in place as system turns when there is a system prompt ({@link
 *       InlineSystem#PRESERVE}), else their text is folded into the neighbouring user turn ({@link
 *       InlineSystem#FOLD}); one between a {@code tool_use} and its results moves after them;
 *   <li>content blocks: non-empty {@code text} → text parts (a lone text part becomes a string),
 *       {@code image} → an {@code image_url} part (a {@code data:} URI for base64 sources), {@code
 *       thinking} → the message's {@code reasoning}, {@code tool_use} → a tool call with JSON
 *       arguments, a user's {@code tool_result} → a {@code tool} message (its text parts joined by
 *       newlines; its images follow as a user message; tool references as a second tool message),
 *       an assistant's {@code tool_result} → the text {@code Tool result: …}; other blocks are
 *       ignored; a user turn left without content is dropped;
 *   <li>{@code tools} → function tools ({@code input_schema} as {@code parameters}); {@code
 *       chat_template_kwargs} (a vLLM extension) as given.
 * </ul>
 *
 * Pure and thread-safe; the input is never changed.
 */
public final class AnthropicChat {

  /** Claude Code's per-request attribution block, which vLLM drops from the system prompt. */
  static final String BILLING_HEADER = "x-anthropic-billing-header";

  /** Where system messages inside {@code messages} go (vLLM's inline-system modes). */
  public enum InlineSystem {
    /** Kept in place as system turns (vLLM's choice for templates that mark them as such). */
    PRESERVE,
    /** Folded into the adjacent user turn. */
    FOLD
  }

  private AnthropicChat() {}

  /**
   * The OpenAI chat request ({@code messages}, and {@code tools} and {@code chat_template_kwargs}
   * when given) vLLM renders for an Anthropic Messages body.
   *
   * @throws VllmChat.InvalidMessage naming the field when the body is not a Messages request
   */
  public static Map<String, Object> toChatRequest(Map<String, Object> body, InlineSystem mode)
      throws VllmChat.InvalidMessage {
    if (!(body.get("messages") instanceof List<?> raw) || raw.isEmpty()) {
      throw new VllmChat.InvalidMessage("'messages' must be a non-empty array");
    }
    List<Map<String, Object>> messages = new ArrayList<>(raw.size());
    for (int i = 0; i < raw.size(); i++) {
      messages.add(checkMessage(raw.get(i), i));
    }
    String system = systemPromptText(body.get("system"));

    int leading = 0;
    while (leading < messages.size() && "system".equals(messages.get(leading).get("role"))) {
      leading++;
    }
    List<String> leadingTexts = new ArrayList<>();
    for (Map<String, Object> m : messages.subList(0, leading)) {
      leadingTexts.add(systemText(m));
    }
    String leadingText = join(leadingTexts);
    List<Map<String, Object>> rest =
        outOfToolRuns(new ArrayList<>(messages.subList(leading, messages.size())));
    boolean anySystem = rest.stream().anyMatch(m -> "system".equals(m.get("role")));
    if (anySystem && (mode == InlineSystem.FOLD || (system.isEmpty() && leadingText.isEmpty()))) {
      rest = fold(rest);
    }

    List<Object> out = new ArrayList<>();
    String systemPrompt = join(List.of(system, leadingText));
    if (!systemPrompt.isEmpty()) {
      out.add(textMessage("system", systemPrompt));
    }
    for (Map<String, Object> m : rest) {
      convertMessage(m, out);
    }

    Map<String, Object> chat = new LinkedHashMap<>();
    chat.put("messages", out);
    Object tools = body.get("tools");
    if (tools != null) {
      chat.put("tools", tools(tools));
    }
    Object kwargs = body.get("chat_template_kwargs");
    if (kwargs != null) {
      if (!(kwargs instanceof Map)) {
        throw new VllmChat.InvalidMessage("'chat_template_kwargs' must be an object");
      }
      chat.put("chat_template_kwargs", kwargs);
    }
    return chat;
  }

  private static Map<String, Object> checkMessage(Object o, int i) throws VllmChat.InvalidMessage {
    if (!(o instanceof Map<?, ?> m)) {
      throw new VllmChat.InvalidMessage("messages[" + i + "] is not an object");
    }
    Object role = m.get("role");
    if (!"user".equals(role) && !"assistant".equals(role) && !"system".equals(role)) {
      throw new VllmChat.InvalidMessage(
          "messages[" + i + "].role must be 'user', 'assistant' or 'system'");
    }
    Object content = m.get("content");
    if (content instanceof List<?> blocks) {
      for (Object b : blocks) {
        if (!(b instanceof Map<?, ?> block) || !(block.get("type") instanceof String)) {
          throw new VllmChat.InvalidMessage(
              "messages[" + i + "].content blocks must be objects with a 'type'");
        }
      }
    } else if (!(content instanceof String)) {
      throw new VllmChat.InvalidMessage(
          "messages[" + i + "].content must be a string or an array of content blocks");
    }
    Map<String, Object> copy = new LinkedHashMap<>();
    m.forEach((k, v) -> copy.put(String.valueOf(k), v));
    return copy;
  }

  /** The top-level {@code system} as one string ("" when absent). */
  private static String systemPromptText(Object system) throws VllmChat.InvalidMessage {
    if (system == null) {
      return "";
    }
    if (system instanceof String s) {
      return s;
    }
    if (system instanceof List<?> blocks) {
      StringBuilder sb = new StringBuilder();
      for (Object b : blocks) {
        if (!(b instanceof Map<?, ?> block)) {
          throw new VllmChat.InvalidMessage("'system' blocks must be objects");
        }
        appendBlockText(block, sb);
      }
      return sb.toString();
    }
    throw new VllmChat.InvalidMessage("'system' must be a string or an array of text blocks");
  }

  private static void appendBlockText(Map<?, ?> block, StringBuilder sb) {
    if ("text".equals(block.get("type"))
        && block.get("text") instanceof String t
        && !t.isEmpty()
        && !t.startsWith(BILLING_HEADER)) {
      sb.append(t);
    }
  }

  /** A system message's text, without the billing header. */
  private static String systemText(Map<String, Object> m) {
    Object content = m.get("content");
    if (content instanceof String s) {
      return s.startsWith(BILLING_HEADER) ? "" : s;
    }
    StringBuilder sb = new StringBuilder();
    for (Object b : (List<?>) content) {
      appendBlockText((Map<?, ?>) b, sb);
    }
    return sb.toString();
  }

  /** Non-empty texts joined by a blank line. */
  private static String join(List<String> texts) {
    StringBuilder sb = new StringBuilder();
    for (String t : texts) {
      if (t != null && !t.isEmpty()) {
        if (sb.length() > 0) {
          sb.append("\n\n");
        }
        sb.append(t);
      }
    }
    return sb.toString();
  }

  private static boolean hasToolUse(Map<String, Object> m) {
    return m.get("content") instanceof List<?> blocks
        && blocks.stream().anyMatch(b -> "tool_use".equals(((Map<?, ?>) b).get("type")));
  }

  /** System messages between an assistant's {@code tool_use} and its results move after them. */
  private static List<Map<String, Object>> outOfToolRuns(List<Map<String, Object>> messages) {
    List<Map<String, Object>> out = new ArrayList<>();
    List<Map<String, Object>> held = new ArrayList<>();
    boolean awaitingResults = false;
    for (Map<String, Object> m : messages) {
      Object role = m.get("role");
      if ("system".equals(role)) {
        (awaitingResults ? held : out).add(m);
        continue;
      }
      if ("assistant".equals(role)) {
        out.addAll(held);
        held.clear();
      }
      out.add(m);
      if ("user".equals(role)) {
        out.addAll(held);
        held.clear();
      }
      awaitingResults = "assistant".equals(role) && hasToolUse(m);
    }
    out.addAll(held);
    return out;
  }

  /** Folds inline system messages' text into the neighbouring user turns. */
  private static List<Map<String, Object>> fold(List<Map<String, Object>> messages) {
    List<Map<String, Object>> out = new ArrayList<>();
    List<String> pending = new ArrayList<>();
    for (Map<String, Object> m : messages) {
      Object role = m.get("role");
      if ("system".equals(role)) {
        String text = systemText(m);
        if (text.isEmpty()) {
          continue;
        }
        if (!out.isEmpty()
            && "user".equals(out.get(out.size() - 1).get("role"))
            && pending.isEmpty()) {
          out.set(out.size() - 1, appendToUser(out.get(out.size() - 1), text));
        } else {
          pending.add(text);
        }
        continue;
      }
      Map<String, Object> msg = m;
      if (!pending.isEmpty()) {
        String text = join(pending);
        pending.clear();
        if ("user".equals(role)) {
          msg = withContent(m, addText(m.get("content"), text, false));
        } else {
          out.add(stringMessage("user", text));
        }
      }
      out.add(msg);
    }
    if (!pending.isEmpty()) {
      out.add(stringMessage("user", join(pending)));
    }
    return out;
  }

  /** Appends to the user's own text or, when it holds only tool results, to the last result. */
  private static Map<String, Object> appendToUser(Map<String, Object> m, String text) {
    Object content = m.get("content");
    if (content instanceof List<?> blocks
        && !blocks.isEmpty()
        && blocks.stream().allMatch(b -> "tool_result".equals(((Map<?, ?>) b).get("type")))) {
      List<Object> copy = new ArrayList<>(blocks);
      Map<String, Object> last = new LinkedHashMap<>();
      ((Map<?, ?>) copy.get(copy.size() - 1)).forEach((k, v) -> last.put(String.valueOf(k), v));
      last.put("content", addText(last.get("content"), text, true));
      copy.set(copy.size() - 1, last);
      return withContent(m, copy);
    }
    if (content instanceof String) {
      return withContent(m, addText(content, text, true));
    }
    List<Object> results = new ArrayList<>();
    List<Object> own = new ArrayList<>();
    for (Object b : (List<?>) content) {
      ("tool_result".equals(((Map<?, ?>) b).get("type")) ? results : own).add(b);
    }
    Object added = addText(own, text, true);
    results.addAll((List<?>) added);
    return withContent(m, results);
  }

  /**
   * {@code text} joined onto one end of {@code content} (a string, null, or blocks): merged into an
   * adjacent text block, else a new text block.
   */
  private static Object addText(Object content, String text, boolean atEnd) {
    if (content == null || content instanceof String) {
      String old = content == null ? "" : (String) content;
      return atEnd ? join(List.of(old, text)) : join(List.of(text, old));
    }
    List<Object> items = new ArrayList<>((List<?>) content);
    int end = atEnd ? items.size() - 1 : 0;
    if (!items.isEmpty()
        && items.get(end) instanceof Map<?, ?> item
        && "text".equals(item.get("type"))) {
      String old = item.get("text") instanceof String s ? s : "";
      Map<String, Object> merged = new LinkedHashMap<>();
      item.forEach((k, v) -> merged.put(String.valueOf(k), v));
      merged.put("text", atEnd ? join(List.of(old, text)) : join(List.of(text, old)));
      items.set(end, merged);
    } else {
      Map<String, Object> block = new LinkedHashMap<>();
      block.put("type", "text");
      block.put("text", text);
      items.add(atEnd ? items.size() : 0, block);
    }
    return items;
  }

  private static Map<String, Object> withContent(Map<String, Object> m, Object content) {
    Map<String, Object> copy = new LinkedHashMap<>(m);
    copy.put("content", content);
    return copy;
  }

  private static Map<String, Object> stringMessage(String role, String text) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("role", role);
    m.put("content", text);
    return m;
  }

  private static Map<String, Object> textMessage(String role, String text) {
    return stringMessage(role, text);
  }

  /** One Anthropic message as OpenAI messages (a user's tool results come first). */
  private static void convertMessage(Map<String, Object> m, List<Object> out) {
    String role = (String) m.get("role");
    Object content = m.get("content");
    if ("system".equals(role)) {
      out.add(textMessage("system", systemText(m)));
      return;
    }
    Map<String, Object> msg = new LinkedHashMap<>();
    msg.put("role", role);
    if (content instanceof String s) {
      msg.put("content", s);
      out.add(msg);
      return;
    }
    List<Object> parts = new ArrayList<>();
    List<Object> toolCalls = new ArrayList<>();
    StringBuilder reasoning = null;
    for (Object o : (List<?>) content) {
      Map<?, ?> block = (Map<?, ?>) o;
      switch ((String) block.get("type")) {
        case "text" -> {
          if (block.get("text") instanceof String t && !t.isEmpty()) {
            parts.add(textPart(t));
          }
        }
        case "image" -> {
          if (block.get("source") instanceof Map<?, ?> source && !source.isEmpty()) {
            parts.add(imagePart(imageUrl(source)));
          }
        }
        case "thinking" -> {
          if (block.get("thinking") instanceof String t) {
            reasoning = reasoning == null ? new StringBuilder() : reasoning;
            reasoning.append(t);
          }
        }
        case "tool_use" -> toolCalls.add(toolCall(block));
        case "tool_result" -> {
          if ("user".equals(role)) {
            userToolResult(block, out);
          } else {
            Object c = block.get("content");
            parts.add(textPart("Tool result: " + (truthy(c) ? PythonText.str(c) : "")));
          }
        }
        default -> {
          // redacted_thinking, tool_reference and unknown blocks: not rendered
        }
      }
    }
    if (reasoning != null && reasoning.length() > 0) {
      msg.put("reasoning", reasoning.toString());
    }
    if (!toolCalls.isEmpty()) {
      msg.put("tool_calls", toolCalls);
    }
    if (!parts.isEmpty()) {
      if (parts.size() == 1 && "text".equals(((Map<?, ?>) parts.get(0)).get("type"))) {
        msg.put("content", ((Map<?, ?>) parts.get(0)).get("text"));
      } else {
        msg.put("content", parts);
      }
    }
    if (!("user".equals(role) && !msg.containsKey("content"))) {
      out.add(msg);
    }
  }

  /** Python truthiness of a JSON value, as vLLM's {@code if block.content}. */
  private static boolean truthy(Object v) {
    if (v == null || Boolean.FALSE.equals(v)) {
      return false;
    }
    if (v instanceof String s) {
      return !s.isEmpty();
    }
    if (v instanceof List<?> l) {
      return !l.isEmpty();
    }
    if (v instanceof Map<?, ?> m) {
      return !m.isEmpty();
    }
    if (v instanceof Long n) {
      return n != 0;
    }
    if (v instanceof Double d) {
      return d != 0;
    }
    return true;
  }

  /** An image source as the URL vLLM passes on: the URL itself, else a base64 {@code data:} URI. */
  static String imageUrl(Map<?, ?> source) {
    if ("url".equals(source.get("type"))) {
      return source.get("url") instanceof String u ? u : "";
    }
    String media = source.get("media_type") instanceof String t ? t : "image/jpeg";
    String data = source.get("data") instanceof String d ? d : "";
    return "data:" + media + ";base64," + data;
  }

  private static void userToolResult(Map<?, ?> block, List<Object> out) {
    Object content = block.get("content");
    String text = "";
    List<Object> images = new ArrayList<>();
    List<Object> references = new ArrayList<>();
    if (content instanceof String s) {
      text = s;
    } else if (content instanceof List<?> items) {
      List<String> texts = new ArrayList<>();
      for (Object o : items) {
        if (!(o instanceof Map<?, ?> item)) {
          continue;
        }
        Object type = item.get("type");
        if ("text".equals(type)) {
          texts.add(item.get("text") instanceof String t ? t : "");
        } else if ("image".equals(type)) {
          String url = imageUrl(item.get("source") instanceof Map<?, ?> s ? s : Map.of());
          if (!url.isEmpty()) {
            images.add(imagePart(url));
          }
        } else if ("tool_reference".equals(type)) {
          Object name = item.get("tool_name") instanceof String n ? n : item.get("name");
          if (name instanceof String n && !n.isEmpty()) {
            Map<String, Object> ref = new LinkedHashMap<>();
            ref.put("type", "tool_reference");
            ref.put("name", n);
            references.add(ref);
          }
        }
      }
      text = String.join("\n", texts);
    }
    String id = block.get("tool_use_id") instanceof String s ? s : "";
    out.add(toolMessage(id, text));
    if (!images.isEmpty()) {
      Map<String, Object> user = new LinkedHashMap<>();
      user.put("role", "user");
      user.put("content", images);
      out.add(user);
    }
    if (!references.isEmpty()) {
      out.add(toolMessage(id, references));
    }
  }

  private static Map<String, Object> toolMessage(String id, Object content) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("role", "tool");
    m.put("tool_call_id", id);
    m.put("content", content);
    return m;
  }

  private static Map<String, Object> toolCall(Map<?, ?> block) {
    Map<String, Object> fn = new LinkedHashMap<>();
    fn.put("name", block.get("name") instanceof String n ? n : "");
    Object input = block.get("input");
    fn.put("arguments", Json.write(truthy(input) ? input : Map.of()));
    Map<String, Object> call = new LinkedHashMap<>();
    // vLLM names an id-less call after the clock; templates rarely render call ids
    call.put(
        "id",
        block.get("id") instanceof String id && !id.isEmpty()
            ? id
            : "call_" + System.currentTimeMillis() / 1000);
    call.put("type", "function");
    call.put("function", fn);
    return call;
  }

  private static List<Object> tools(Object tools) throws VllmChat.InvalidMessage {
    if (!(tools instanceof List<?> list)) {
      throw new VllmChat.InvalidMessage("'tools' must be an array");
    }
    List<Object> out = new ArrayList<>(list.size());
    for (Object o : list) {
      if (!(o instanceof Map<?, ?> tool) || !(tool.get("name") instanceof String name)) {
        throw new VllmChat.InvalidMessage("'tools' entries must be objects with a 'name'");
      }
      Map<String, Object> fn = new LinkedHashMap<>();
      fn.put("name", name);
      if (tool.get("description") != null) {
        fn.put("description", tool.get("description"));
      }
      if (tool.get("input_schema") != null) {
        fn.put("parameters", tool.get("input_schema"));
      }
      Map<String, Object> t = new LinkedHashMap<>();
      t.put("type", "function");
      t.put("function", fn);
      out.add(t);
    }
    return out;
  }

  private static Map<String, Object> textPart(String text) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("type", "text");
    p.put("text", text);
    return p;
  }

  private static Map<String, Object> imagePart(String url) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("type", "image_url");
    p.put("image_url", Map.of("url", url));
    return p;
  }
}
