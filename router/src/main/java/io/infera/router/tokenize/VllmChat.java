package io.infera.router.tokenize;

import io.infera.router.json.Json;
import io.infera.router.json.JsonException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Normalizes OpenAI chat messages the way vLLM does before {@code apply_chat_template}, so the
 * router renders what the engine renders: only known keys survive; content becomes a string (text
 * parts joined by newlines) or a list of {@code {type: text, text}} parts, per the template's
 * {@link ContentFormat}; null content becomes empty; assistant tool-call arguments given as JSON
 * strings become objects; reasoning is exposed as both {@code reasoning} and {@code
 * reasoning_content}.
 */
public final class VllmChat {

  private VllmChat() {}

  /** Thrown for messages that are not valid OpenAI chat messages; the message says which. */
  public static final class InvalidMessage extends Exception {
    public InvalidMessage(String message) {
      super(message, null, false, false);
    }
  }

  public static List<Object> normalize(List<?> messages, ContentFormat format)
      throws InvalidMessage {
    List<Object> out = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      if (!(messages.get(i) instanceof Map<?, ?> m)) {
        throw new InvalidMessage("messages[" + i + "] is not an object");
      }
      out.add(message(m, format, i));
    }
    return out;
  }

  private static Map<String, Object> message(Map<?, ?> m, ContentFormat format, int i)
      throws InvalidMessage {
    Object role = m.get("role");
    if (!(role instanceof String r)) {
      throw new InvalidMessage("messages[" + i + "].role must be a string");
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("role", r);
    out.put("content", content(m.get("content"), format, i));
    if (r.equals("assistant")) {
      Object calls = m.get("tool_calls");
      if (calls != null) {
        if (!(calls instanceof List<?> list)) {
          throw new InvalidMessage("messages[" + i + "].tool_calls must be an array");
        }
        List<Object> parsed = new ArrayList<>();
        for (Object c : list) {
          parsed.add(toolCall(c, i));
        }
        if (!parsed.isEmpty()) { // vLLM drops an empty list
          out.put("tool_calls", parsed);
        }
      }
      Object reasoning =
          m.get("reasoning") != null ? m.get("reasoning") : m.get("reasoning_content");
      if (reasoning != null) {
        out.put("reasoning", reasoning);
        out.put("reasoning_content", reasoning);
      }
    } else if (r.equals("tool")) {
      if (m.containsKey("tool_call_id")) {
        out.put("tool_call_id", m.get("tool_call_id"));
      }
      // vLLM: a tool message whose parts are all text reaches the template as one string
      if (out.get("content") instanceof List<?> parts
          && parts.stream()
              .allMatch(p -> p instanceof Map<?, ?> q && "text".equals(q.get("type")))) {
        List<String> texts = new ArrayList<>();
        parts.forEach(p -> texts.add((String) ((Map<?, ?>) p).get("text")));
        out.put("content", String.join("\n", texts));
      }
    }
    if (m.get("name") instanceof String name) {
      out.put("name", name);
    }
    if (m.get("task") instanceof String task) {
      out.put("task", task);
    }
    return out;
  }

  private static Object content(Object content, ContentFormat format, int i) throws InvalidMessage {
    List<String> texts = new ArrayList<>();
    List<Object> parts = new ArrayList<>();
    if (content == null) {
      // vLLM: no content is an empty list of parts
    } else if (content instanceof String s) {
      texts.add(s);
      parts.add(textPart(s));
    } else if (content instanceof List<?> list) {
      for (Object p : list) {
        if (p instanceof String s) {
          texts.add(s);
          parts.add(textPart(s));
          continue;
        }
        if (!(p instanceof Map<?, ?> part)) {
          throw new InvalidMessage("messages[" + i + "].content parts must be objects");
        }
        Object type = part.get("type");
        if ("text".equals(type) || "input_text".equals(type) || "output_text".equals(type)) {
          Object text = part.get("text");
          if (!(text instanceof String s)) {
            throw new InvalidMessage("messages[" + i + "].content text part has no text");
          }
          texts.add(s);
          parts.add(textPart(s));
        } else if ("refusal".equals(type) && part.get("refusal") instanceof String s) {
          texts.add(s);
          parts.add(textPart(s));
        } else if ("thinking".equals(type) && part.get("thinking") instanceof String s) {
          texts.add(s);
          parts.add(textPart(s));
        } else if (modality(type) != null) {
          // the engine inserts model-specific placeholders the router cannot reproduce: OPENAI
          // templates see {type: <modality>}, STRING ones nothing
          parts.add(Map.of("type", modality(type)));
        } else {
          // Multimodal parts: the engine inserts model-specific placeholders the router cannot
          // reproduce; keep the part for OPENAI templates, drop it from STRING ones.
          Map<String, Object> copy = new LinkedHashMap<>();
          part.forEach((k, v) -> copy.put(String.valueOf(k), v));
          parts.add(copy);
        }
      }
    } else {
      throw new InvalidMessage("messages[" + i + "].content must be a string, an array or null");
    }
    return format == ContentFormat.OPENAI ? parts : String.join("\n", texts);
  }

  private static String modality(Object type) {
    if (!(type instanceof String t)) {
      return null;
    }
    return switch (t) {
      case "image_url", "input_image", "image_pil", "image_embeds" -> "image";
      case "audio_url", "input_audio", "audio_embeds" -> "audio";
      case "video_url", "video_embeds" -> "video";
      default -> null;
    };
  }

  private static Map<String, Object> textPart(String s) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("type", "text");
    p.put("text", s);
    return p;
  }

  @SuppressWarnings("unchecked")
  private static Object toolCall(Object c, int i) throws InvalidMessage {
    if (!(c instanceof Map<?, ?> call)) {
      throw new InvalidMessage("messages[" + i + "].tool_calls entries must be objects");
    }
    Map<String, Object> copy = new LinkedHashMap<>();
    call.forEach((k, v) -> copy.put(String.valueOf(k), v));
    if (copy.get("function") instanceof Map<?, ?> fn) {
      Map<String, Object> f = new LinkedHashMap<>((Map<String, Object>) fn);
      Object args = f.get("arguments");
      if (args instanceof String s) {
        if (s.isEmpty()) {
          f.put("arguments", new LinkedHashMap<>());
        } else {
          // vLLM keeps the conversation going: arguments that are not a JSON object become {}
          Object parsed;
          try {
            parsed = Json.parse(s);
          } catch (JsonException e) {
            parsed = null;
          }
          f.put("arguments", parsed instanceof Map ? parsed : new LinkedHashMap<>());
        }
      } else if (args == null) {
        f.put("arguments", new LinkedHashMap<>());
      }
      copy.put("function", f);
    }
    return copy;
  }
}
