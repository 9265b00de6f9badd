package io.infera.jinja;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The chat-template golden corpus under {@code golden/chat} (built by make_goldens.py), read from
 * the class path so the router's tests can use it from this module's test jar.
 */
public final class ChatGoldens {

  private ChatGoldens() {}

  /** The instant make_goldens.py pins {@code strftime_now} to. */
  public static final Clock FIXED_CLOCK =
      Clock.fixed(
          LocalDateTime.of(2026, 11, 30, 9, 5, 7).toInstant(ZoneOffset.UTC), ZoneOffset.UTC);

  /**
   * One case: a template, the variables, and what Python rendered (or the error it raised). For the
   * real templates, {@code requestMessages} is the chat request as a client sends it and {@code
   * messages} what vLLM's normalization of it hands the template, for the {@code contentFormat}
   * ({@code "string"} or {@code "openai"}) vLLM detected; both are null for the feature templates,
   * whose {@code messages} are rendered as written.
   */
  public record Case(
      String id,
      String template,
      List<Object> requestMessages,
      String contentFormat,
      List<Object> messages,
      Object tools,
      Object documents,
      boolean addGenerationPrompt,
      Map<String, Object> extra,
      String expected,
      String errorType,
      String errorMessage) {

    @Override
    public String toString() {
      return id;
    }

    /** The variables Python rendered with: specials, then the call arguments, then extras. */
    public Map<String, Object> variables() {
      Map<String, Object> vars = new HashMap<>(specialTokens(template));
      vars.put("messages", messages);
      vars.put("tools", tools);
      vars.put("documents", documents);
      vars.put("add_generation_prompt", addGenerationPrompt);
      vars.putAll(extra);
      return vars;
    }
  }

  private static final Map<String, String> SOURCES = new ConcurrentHashMap<>();
  private static final Map<String, Map<String, Object>> SPECIALS = new ConcurrentHashMap<>();

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A file of the corpus, e.g. {@code templates/qwen3.jinja}, as UTF-8 text. */
  private static String read(String file) {
    String resource = "/golden/chat/" + file;
    try (InputStream in = ChatGoldens.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("no test resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static String templateSource(String name) {
    return SOURCES.computeIfAbsent(name, n -> read("templates/" + n + ".jinja"));
  }

  @SuppressWarnings("unchecked")
  public static Map<String, Object> specialTokens(String name) {
    return SPECIALS.computeIfAbsent(
        name,
        n -> {
          try {
            Map<String, Object> meta = JSON.readValue(read("templates/" + n + ".json"), Map.class);
            Map<String, Object> out = new HashMap<>();
            for (String k : List.of("bos_token", "eos_token", "unk_token", "pad_token")) {
              if (meta.get(k) != null) {
                out.put(k, meta.get(k));
              }
            }
            return out;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  @SuppressWarnings("unchecked")
  public static List<Case> cases() {
    List<Case> out = new ArrayList<>();
    try {
      for (String line : read("cases.jsonl").split("\n", -1)) {
        if (line.isBlank()) {
          continue;
        }
        Map<String, Object> m = JSON.readValue(line, Map.class);
        Map<String, Object> err = (Map<String, Object>) m.get("error");
        out.add(
            new Case(
                (String) m.get("id"),
                (String) m.get("template"),
                (List<Object>) m.get("request_messages"),
                (String) m.get("content_format"),
                (List<Object>) m.get("messages"),
                m.get("tools"),
                m.get("documents"),
                Boolean.TRUE.equals(m.get("add_generation_prompt")),
                m.get("extra") == null ? Map.of() : (Map<String, Object>) m.get("extra"),
                (String) m.get("expected"),
                err == null ? null : (String) err.get("type"),
                err == null ? null : (String) err.get("message")));
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot read golden cases", e);
    }
    return out;
  }
}
