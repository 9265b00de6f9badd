package io.infera.router.tokenize.jinja;

import io.infera.router.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The chat-template golden corpus under {@code golden/chat} (built by make_goldens.py). */
public final class ChatGoldens {

  private ChatGoldens() {}

  /** The instant make_goldens.py pins {@code strftime_now} to. */
  public static final Clock FIXED_CLOCK =
      Clock.fixed(
          LocalDateTime.of(2026, 11, 30, 9, 5, 7).toInstant(ZoneOffset.UTC), ZoneOffset.UTC);

  /** One case: a template, the variables, and what Python rendered (or the error it raised). */
  public record Case(
      String id,
      String template,
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

  public static Path dir() {
    try {
      return Path.of(ChatGoldens.class.getResource("/golden/chat").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String templateSource(String name) {
    return SOURCES.computeIfAbsent(
        name,
        n -> {
          try {
            return new String(
                Files.readAllBytes(dir().resolve("templates").resolve(n + ".jinja")),
                StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  @SuppressWarnings("unchecked")
  public static Map<String, Object> specialTokens(String name) {
    return SPECIALS.computeIfAbsent(
        name,
        n -> {
          try {
            Path p = dir().resolve("templates").resolve(n + ".json");
            Map<String, Object> meta = (Map<String, Object>) Json.parse(Files.readString(p));
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
      for (String line : Files.readAllLines(dir().resolve("cases.jsonl"), StandardCharsets.UTF_8)) {
        if (line.isBlank()) {
          continue;
        }
        Map<String, Object> m = (Map<String, Object>) Json.parse(line);
        Map<String, Object> err = (Map<String, Object>) m.get("error");
        out.add(
            new Case(
                (String) m.get("id"),
                (String) m.get("template"),
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
