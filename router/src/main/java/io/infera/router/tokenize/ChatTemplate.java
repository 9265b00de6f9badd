package io.infera.router.tokenize;

import io.infera.jinja.JinjaTemplate;
import io.infera.jinja.RenderBudget;
import io.infera.jinja.TemplateException;
import java.time.Clock;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A model's chat template(s) with the variables {@code apply_chat_template} adds: the special
 * tokens of {@code tokenizer_config.json} (an AddedToken object means its content; absent or null
 * ones stay undefined) and the named-template choice ({@code tool_use} when tools are given).
 * Parsed once; thread-safe.
 */
public final class ChatTemplate {

  private static final List<String> SPECIAL_KEYS =
      List.of(
          "bos_token",
          "eos_token",
          "unk_token",
          "sep_token",
          "pad_token",
          "cls_token",
          "mask_token");

  private final Map<String, JinjaTemplate> named;
  private final JinjaTemplate fallback;
  private final Map<String, Object> specialTokens;
  private final ContentFormat contentFormat;

  private ChatTemplate(
      Map<String, JinjaTemplate> named, JinjaTemplate fallback, Map<String, Object> specials) {
    this.named = named;
    this.fallback = fallback;
    this.specialTokens = specials;
    this.contentFormat = ContentFormat.detect(fallback.source());
  }

  /** The template of a model, from {@code chat_template.jinja} or {@code tokenizer_config.json}. */
  public static ChatTemplate from(ModelFiles files) throws TokenizerException {
    Map<String, JinjaTemplate> named = new LinkedHashMap<>();
    Object cfg = files.config().get("chat_template");
    try {
      if (cfg instanceof String s) {
        named.put("default", JinjaTemplate.parse(s));
      } else if (cfg instanceof List<?> list) {
        for (Object o : list) {
          if (o instanceof Map<?, ?> m
              && m.get("name") instanceof String n
              && m.get("template") instanceof String t) {
            named.put(n, JinjaTemplate.parse(t));
          }
        }
      }
      if (files.chatTemplateFile() != null) {
        named.put("default", JinjaTemplate.parse(files.chatTemplateFile()));
      }
    } catch (TemplateException e) {
      throw new TokenizerException(files.origin() + ": " + e.describe());
    }
    if (named.isEmpty()) {
      throw new TokenizerException(
          files.origin()
              + " has no chat template (tokenizer_config.json chat_template or"
              + " chat_template.jinja)");
    }
    JinjaTemplate fallback =
        named.containsKey("default") ? named.get("default") : named.values().iterator().next();
    return new ChatTemplate(named, fallback, specials(files.config()));
  }

  /**
   * A template given directly (tests, {@code --chat-template}).
   *
   * @throws ChatTemplateException when the template does not parse
   */
  public static ChatTemplate of(String source, Map<String, Object> specialTokens) {
    try {
      return new ChatTemplate(
          Map.of("default", JinjaTemplate.parse(source)),
          JinjaTemplate.parse(source),
          new HashMap<>(specialTokens));
    } catch (TemplateException e) {
      throw new ChatTemplateException(e);
    }
  }

  private static Map<String, Object> specials(Map<String, Object> config) {
    Map<String, Object> out = new HashMap<>();
    for (String key : SPECIAL_KEYS) {
      String v = tokenContent(config.get(key));
      if (v != null) {
        out.put(key, v);
      }
    }
    if (config.get("additional_special_tokens") instanceof List<?> extra) {
      out.put(
          "additional_special_tokens",
          extra.stream().map(ChatTemplate::tokenContent).filter(s -> s != null).toList());
    }
    return out;
  }

  private static String tokenContent(Object v) {
    if (v instanceof String s) {
      return s;
    }
    if (v instanceof Map<?, ?> m && m.get("content") instanceof String s) {
      return s;
    }
    return null;
  }

  public ContentFormat contentFormat() {
    return contentFormat;
  }

  public Map<String, Object> specialTokens() {
    return Map.copyOf(specialTokens);
  }

  /** Renders with the system clock. */
  public String render(ChatInput input) {
    return render(input, Clock.systemDefaultZone());
  }

  /** Renders with the {@linkplain TemplateBudget#DEFAULTS default budget}. */
  public String render(ChatInput input, Clock clock) {
    return render(input, clock, TemplateBudget.DEFAULTS);
  }

  /**
   * @param budget the render's limits, scaled by the size of {@code input}
   * @throws ChatTemplateException when the template fails (a user-facing, non-retryable error) or
   *     would exceed {@code budget} ({@link ChatTemplateException#overBudget()})
   */
  public String render(ChatInput input, Clock clock, TemplateBudget budget) {
    try {
      return renderOrThrow(input, clock, budget.toEngine());
    } catch (TemplateException e) {
      throw new ChatTemplateException(e);
    }
  }

  private String renderOrThrow(ChatInput input, Clock clock, RenderBudget budget) {
    JinjaTemplate t = fallback;
    if (input.tools() != null && named.containsKey("tool_use")) {
      t = named.get("tool_use");
    }
    Map<String, Object> vars = new HashMap<>(specialTokens);
    vars.put("messages", input.messages());
    vars.put("tools", input.tools());
    vars.put("documents", input.documents());
    vars.put("add_generation_prompt", input.addGenerationPrompt());
    vars.putAll(input.kwargs());
    String rendered = t.render(vars, clock, budget);
    if (input.continueFinalMessage() && !input.messages().isEmpty()) {
      rendered = continueFinal(rendered, input.messages().get(input.messages().size() - 1));
    }
    return rendered;
  }

  /** transformers' {@code continue_final_message}: cut after the final message's content. */
  private static String continueFinal(String rendered, Object last) {
    Object content = last instanceof Map<?, ?> m ? m.get("content") : null;
    String text = null;
    if (content instanceof String s) {
      text = s;
    } else if (content instanceof List<?> parts) {
      for (int i = parts.size() - 1; i >= 0 && text == null; i--) {
        if (parts.get(i) instanceof Map<?, ?> part && part.get("text") instanceof String s) {
          text = s;
        }
      }
    }
    if (text == null) {
      throw new TemplateException(
          TemplateException.Kind.RUNTIME,
          "continue_final_message is set but the final message has no text to continue");
    }
    String stripped = text.strip();
    int at = rendered.lastIndexOf(stripped);
    if (at < 0) {
      throw new TemplateException(
          TemplateException.Kind.RUNTIME,
          "continue_final_message is set but the final message does not appear in the rendered"
              + " chat");
    }
    String lstripped = text.stripLeading();
    int end = at + lstripped.length();
    if (end <= rendered.length() && rendered.substring(at, end).equals(text)) {
      return rendered.substring(0, end);
    }
    return rendered.substring(0, at + stripped.length());
  }
}
