package io.infera.jinja;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The default budget never bothers a real chat: every real model template of the golden corpus
 * renders a conversation of about a million tokens (4 Mi characters) — as a few long messages and
 * as tens of thousands of short ones — within {@link RenderBudget#DEFAULT}, with headroom.
 */
class RealTemplateBudgetTest {

  /** About a million tokens at four characters each. */
  static final long TARGET_CHARS = 4L << 20;

  /** How much of each limit a real render may use at most: the default keeps 2× headroom. */
  static final double MAX_SHARE = 0.5;

  /** The many-turn shape: a million tokens as 2,000 messages of about 500 tokens. */
  static final int MANY_MESSAGES = 2_000;

  record Usage(double output, double allocation, double steps) {
    double max() {
      return Math.max(output, Math.max(allocation, steps));
    }
  }

  @Test
  void millionTokenConversationsRenderWithinTheDefaultBudgetWithHeadroom() {
    Map<String, Usage> worst = new TreeMap<>();
    int rendered = 0;
    for (ChatGoldens.Case c : richestCasePerTemplate()) {
      JinjaTemplate t = JinjaTemplate.parse(ChatGoldens.templateSource(c.template()));
      for (boolean longMessages : new boolean[] {true, false}) {
        Map<String, Object> vars = new HashMap<>(c.variables());
        vars.put("messages", longMessages ? lengthen(c.messages()) : repeat(c.messages()));
        Usage[] u = new Usage[1];
        long t0 = System.nanoTime();
        String out;
        try {
          out =
              t.render(
                  vars,
                  ChatGoldens.FIXED_CLOCK,
                  RenderBudget.DEFAULT,
                  m ->
                      u[0] =
                          new Usage(
                              m.outputUsed() / (double) m.maxOutput,
                              m.allocated() / (double) m.maxAllocation,
                              m.stepsUsed() / (double) m.maxSteps));
        } catch (TemplateBudgetException e) {
          throw new AssertionError(c.id() + (longMessages ? " long" : " many") + ": " + e, e);
        } catch (TemplateException e) {
          continue; // the scaled conversation broke a template rule (alternation, roles)
        }
        // Some templates render only part of the chat (a guard model's last turn).
        if (out.length() > TARGET_CHARS / 2) {
          rendered++;
        }
        String key = c.template() + (longMessages ? " long" : " many");
        System.out.printf(
            "render %s %d chars in %d ms%n",
            key, out.length(), (System.nanoTime() - t0) / 1_000_000);
        if (!worst.containsKey(key) || worst.get(key).max() < u[0].max()) {
          worst.put(key, u[0]);
        }
      }
    }
    worst.forEach(
        (k, u) ->
            System.out.printf(
                "budget-share %-40s output %.3f allocation %.3f steps %.3f%n",
                k, u.output(), u.allocation(), u.steps()));
    assertThat(rendered).isGreaterThanOrEqualTo(50);
    assertThat(worst.keySet())
        .anyMatch(k -> k.startsWith("qwen3"))
        .anyMatch(k -> k.startsWith("llama3"))
        .anyMatch(k -> k.startsWith("deepseek"))
        .anyMatch(k -> k.startsWith("mistral"))
        .anyMatch(k -> k.startsWith("gemma"));
    worst.forEach((k, u) -> assertThat(u.max()).as(k).isLessThanOrEqualTo(MAX_SHARE));
  }

  /** Every message's text scaled up until the whole conversation has about TARGET_CHARS. */
  static List<Object> lengthen(List<Object> messages) {
    long chars = Math.max(1, textChars(messages));
    int factor = (int) Math.max(1, TARGET_CHARS / chars);
    return (List<Object>) scale(messages, factor);
  }

  /**
   * The turns after the system prompt repeated until the conversation has about TARGET_CHARS (tens
   * of thousands of messages); one system prompt, as in a real chat.
   */
  static List<Object> repeat(List<Object> messages) {
    List<Object> out = new ArrayList<>();
    List<Object> turns = messages;
    if (!messages.isEmpty()
        && messages.get(0) instanceof Map<?, ?> first
        && "system".equals(first.get("role"))) {
      out.add(first);
      turns = messages.subList(1, messages.size());
    }
    // 2,000 messages of about 2,000 characters (500 tokens) each.
    int factor =
        (int) Math.max(1, 2_000 * Math.max(1, turns.size()) / Math.max(1, textChars(turns)));
    List<Object> scaled = (List<Object>) scale(turns, factor);
    for (int i = 0; out.size() < MANY_MESSAGES && !scaled.isEmpty(); i++) {
      out.addAll(scaled);
    }
    return out;
  }

  /** Per template, the golden case with the most text: tools, reasoning, multi-turn. */
  static List<ChatGoldens.Case> richestCasePerTemplate() {
    Map<String, ChatGoldens.Case> best = new TreeMap<>();
    for (ChatGoldens.Case c : ChatGoldens.cases()) {
      if (c.messages() == null || c.errorType() != null || c.expected() == null) {
        continue;
      }
      ChatGoldens.Case b = best.get(c.template());
      if (b == null || textChars(c.variables()) > textChars(b.variables())) {
        best.put(c.template(), c);
      }
    }
    return List.copyOf(best.values());
  }

  private static long textChars(Object v) {
    if (v instanceof String s) {
      return s.length();
    }
    long n = 0;
    if (v instanceof Map<?, ?> m) {
      for (Object o : m.values()) {
        n += textChars(o);
      }
    } else if (v instanceof List<?> l) {
      for (Object o : l) {
        n += textChars(o);
      }
    }
    return n;
  }

  private static Object scale(Object v, int factor) {
    if (v instanceof Map<?, ?> m) {
      Map<Object, Object> out = new LinkedHashMap<>();
      m.forEach(
          (k, x) ->
              out.put(
                  k,
                  ("content".equals(k) || "text".equals(k) || "reasoning_content".equals(k))
                          && x instanceof String s
                      ? s.repeat(factor)
                      : scale(x, factor)));
      return out;
    }
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      for (Object o : l) {
        out.add(scale(o, factor));
      }
      return out;
    }
    return v;
  }
}
