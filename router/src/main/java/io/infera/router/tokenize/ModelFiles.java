package io.infera.router.tokenize;

import java.util.Map;

/**
 * The files a tokenizer is built from.
 *
 * @param tokenizerJson contents of {@code tokenizer.json}, or null when only a template is needed
 * @param config parsed {@code tokenizer_config.json}, empty when absent
 * @param chatTemplateFile contents of {@code chat_template.jinja}, or null
 * @param origin where they came from, for messages
 */
public record ModelFiles(
    byte[] tokenizerJson, Map<String, Object> config, String chatTemplateFile, String origin) {

  public ModelFiles {
    config = config == null ? Map.of() : config;
  }
}
