package io.infera.router.tokenize;

import java.util.regex.Pattern;

/**
 * How message content reaches the template, as vLLM decides per template: {@code STRING} joins text
 * parts with newlines; {@code OPENAI} passes a list of {@code {type, text}} parts (templates that
 * loop over {@code message['content']}).
 */
public enum ContentFormat {
  STRING,
  OPENAI;

  private static final Pattern LOOPS_OVER_CONTENT =
      Pattern.compile(
          "\\{%-?\\s*for\\s+\\w+\\s+in\\s+[\\w.\\[\\]'\"]*?(\\[\\s*['\"]content['\"]\\s*\\]|\\.content(?!\\w))");

  /** vLLM's detection: a template iterating over a message's content wants the OpenAI shape. */
  public static ContentFormat detect(String templateSource) {
    return templateSource != null && LOOPS_OVER_CONTENT.matcher(templateSource).find()
        ? OPENAI
        : STRING;
  }
}
