package io.infera.router.tokenize;

import java.util.List;
import java.util.Map;

/**
 * What a chat template is rendered with, after vLLM-style normalization ({@link VllmChat}).
 *
 * @param messages message dicts as plain Java values
 * @param tools tool schemas, or null (the template sees {@code None})
 * @param documents RAG documents, or null
 * @param addGenerationPrompt append the assistant turn header
 * @param continueFinalMessage cut the rendering right after the last message's content
 * @param kwargs {@code chat_template_kwargs} (e.g. {@code enable_thinking}); override specials
 */
public record ChatInput(
    List<Object> messages,
    List<Object> tools,
    List<Object> documents,
    boolean addGenerationPrompt,
    boolean continueFinalMessage,
    Map<String, Object> kwargs) {

  public ChatInput {
    messages = messages == null ? List.of() : messages;
    kwargs = kwargs == null ? Map.of() : kwargs;
  }

  public static ChatInput of(List<Object> messages) {
    return new ChatInput(messages, null, null, true, false, Map.of());
  }
}
