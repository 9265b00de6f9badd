package io.infera.sim.engine;

import io.infera.router.json.Json;
import io.infera.router.json.JsonException;
import io.infera.router.routing.MediaRefs;
import io.infera.router.tokenize.AnthropicChat;
import io.infera.router.tokenize.ChatInput;
import io.infera.router.tokenize.ChatTemplateException;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.ResponsesChat;
import io.infera.router.tokenize.TokenizerException;
import io.infera.router.tokenize.VllmChat;
import java.util.List;
import java.util.Map;

/**
 * Validates and tokenizes request bodies exactly as the router does: chats (and Messages and
 * Responses bodies, as the chat requests they convert to: {@link AnthropicChat}, {@link
 * ResponsesChat}) are normalized like vLLM ({@link VllmChat}), rendered with the chat template and
 * encoded without special tokens, their images (audio, video) put in front as opaque tokens ({@link
 * ImageTokens}); completion prompts are encoded with them; token arrays are used as is. CPU-heavy:
 * called on a worker thread, never on an event loop. Thread-safe.
 */
final class RequestParser {

  /** The generation endpoints. */
  enum Endpoint {
    CHAT,
    COMPLETIONS,
    /** Anthropic's Messages API, rendered as the chat request vLLM converts it to. */
    MESSAGES,
    /** OpenAI's Responses API (text input and output), rendered likewise. */
    RESPONSES
  }

  /**
   * A validated generation request.
   *
   * @param promptIds the prompt's token ids, non-empty
   * @param maxTokens tokens to generate, {@code >= 1}
   * @param includeUsage {@code stream_options.include_usage}
   * @param batchPrompts prompts in the request (a list of several: only the first is served)
   */
  record Parsed(
      Endpoint endpoint,
      String model,
      int[] promptIds,
      int maxTokens,
      boolean stream,
      boolean includeUsage,
      int batchPrompts) {}

  /** {@code max_tokens} when the request names none (vLLM's completions default). */
  static final int DEFAULT_MAX_TOKENS = 16;

  private final PromptTokenizer tokenizer;
  private final String model;
  private final int maxModelLen;
  private final String divergentTemplate;

  RequestParser(PromptTokenizer tokenizer, String model, int maxModelLen) {
    this(tokenizer, model, maxModelLen, null);
  }

  /**
   * @param divergentTemplate text put before every rendered chat (a template unlike the router's),
   *     or null
   */
  RequestParser(
      PromptTokenizer tokenizer, String model, int maxModelLen, String divergentTemplate) {
    this.tokenizer = tokenizer;
    this.model = model;
    this.maxModelLen = maxModelLen;
    this.divergentTemplate = divergentTemplate;
  }

  int maxModelLen() {
    return maxModelLen;
  }

  /** Parses a {@code /v1/chat/completions} or {@code /v1/completions} body. */
  Parsed parse(Endpoint endpoint, byte[] body) throws ApiError {
    Map<String, Object> m = object(body);
    String requestModel = checkModel(m);
    Object streamValue = m.get("stream");
    if (streamValue != null && !(streamValue instanceof Boolean)) {
      throw ApiError.badRequest("'stream' must be a boolean", "stream");
    }
    boolean stream = Boolean.TRUE.equals(streamValue);
    boolean includeUsage = false;
    Object options = m.get("stream_options");
    if (options instanceof Map<?, ?> o) {
      includeUsage = Boolean.TRUE.equals(o.get("include_usage"));
    } else if (options != null) {
      throw ApiError.badRequest("'stream_options' must be an object", "stream_options");
    }
    int maxTokens = maxTokens(m, endpoint);
    int[] ids;
    int batch = 1;
    if (endpoint == Endpoint.CHAT) {
      ids = chatIds(m, false);
    } else if (endpoint == Endpoint.MESSAGES) {
      try {
        ids = chatIds(AnthropicChat.toChatRequest(m, AnthropicChat.InlineSystem.PRESERVE), false);
      } catch (VllmChat.InvalidMessage e) {
        throw ApiError.badRequest(e.getMessage(), "messages");
      }
    } else if (endpoint == Endpoint.RESPONSES) {
      ResponsesChat.Outcome outcome;
      try {
        outcome = ResponsesChat.toChatRequest(m);
      } catch (VllmChat.InvalidMessage e) {
        throw ApiError.badRequest(e.getMessage(), "input");
      }
      if (!(outcome instanceof ResponsesChat.Outcome.Chat chat)) {
        // The simulator keeps no responses: there is no stored history to continue.
        throw ApiError.badRequest(
            "the simulator stores no responses: previous_response_id, previous_response and"
                + " items it cannot render are not supported ("
                + ((ResponsesChat.Outcome.ByLoad) outcome).reason()
                + ")",
            "input");
      }
      ids = chatIds(chat.request(), false);
    } else {
      Object prompt = m.get("prompt");
      if (prompt instanceof List<?> list && !list.isEmpty() && !(list.get(0) instanceof Number)) {
        // A batch of prompts: vLLM would serve each; the simulator serves the first.
        batch = list.size();
        prompt = list.get(0);
      }
      ids = completionIds(prompt, true);
    }
    if (ids.length == 0) {
      throw ApiError.badRequest("The decoder prompt cannot be empty", "prompt");
    }
    long total = (long) ids.length + maxTokens;
    if (total > maxModelLen) {
      throw ApiError.badRequest(
          "This model's maximum context length is "
              + maxModelLen
              + " tokens. However, you requested "
              + total
              + " tokens ("
              + ids.length
              + " in the messages, "
              + maxTokens
              + " in the completion). Please reduce the length of the messages or completion.",
          null);
    }
    return new Parsed(endpoint, requestModel, ids, maxTokens, stream, includeUsage, batch);
  }

  /**
   * vLLM's {@code POST /tokenize}: a chat ({@code messages}, special tokens off by default) or a
   * completion prompt (special tokens on by default).
   */
  int[] tokenize(byte[] body) throws ApiError {
    Map<String, Object> m = object(body);
    checkModel(m);
    Object special = m.get("add_special_tokens");
    if (special != null && !(special instanceof Boolean)) {
      throw ApiError.badRequest("'add_special_tokens' must be a boolean", "add_special_tokens");
    }
    if (m.containsKey("messages")) {
      return chatIds(m, Boolean.TRUE.equals(special));
    }
    if (!m.containsKey("prompt")) {
      throw ApiError.badRequest("either 'prompt' or 'messages' is required", "prompt");
    }
    return completionIds(m.get("prompt"), special == null || Boolean.TRUE.equals(special));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> object(byte[] body) throws ApiError {
    Object parsed;
    try {
      parsed = Json.parse(body);
    } catch (JsonException e) {
      throw ApiError.badRequest("request body is not valid JSON: " + e.getMessage(), null);
    }
    if (!(parsed instanceof Map)) {
      throw ApiError.badRequest("request body must be a JSON object", null);
    }
    return (Map<String, Object>) parsed;
  }

  private String checkModel(Map<String, Object> m) throws ApiError {
    Object v = m.get("model");
    if (v == null) {
      return model;
    }
    if (!(v instanceof String s)) {
      throw ApiError.badRequest("'model' must be a string", "model");
    }
    if (!s.equals(model)) {
      throw ApiError.notFound("The model `" + s + "` does not exist.");
    }
    return s;
  }

  private static int maxTokens(Map<String, Object> m, Endpoint endpoint) throws ApiError {
    String key = endpoint == Endpoint.RESPONSES ? "max_output_tokens" : "max_tokens";
    Object v = m.get(key);
    if (endpoint == Endpoint.CHAT && m.get("max_completion_tokens") != null) {
      key = "max_completion_tokens";
      v = m.get(key);
    }
    if (v == null && endpoint == Endpoint.MESSAGES) {
      throw ApiError.badRequest("'max_tokens' is required", "max_tokens");
    }
    if (v == null) {
      return DEFAULT_MAX_TOKENS;
    }
    if (!(v instanceof Long l) || l > Integer.MAX_VALUE) {
      throw ApiError.badRequest("'" + key + "' must be an integer", key);
    }
    if (l < 1) {
      throw ApiError.badRequest(key + " must be at least 1, got " + l + ".", key);
    }
    return (int) (long) l;
  }

  @SuppressWarnings("unchecked")
  private int[] chatIds(Map<String, Object> m, boolean addSpecialTokens) throws ApiError {
    if (!(m.get("messages") instanceof List<?> messages) || messages.isEmpty()) {
      throw ApiError.badRequest("'messages' must be a non-empty array", "messages");
    }
    Object tools = m.get("tools");
    if (tools != null && !(tools instanceof List)) {
      throw ApiError.badRequest("'tools' must be an array", "tools");
    }
    Object kwargs = m.get("chat_template_kwargs");
    if (kwargs != null && !(kwargs instanceof Map)) {
      throw ApiError.badRequest("'chat_template_kwargs' must be an object", "chat_template_kwargs");
    }
    Object agp = m.get("add_generation_prompt");
    Object docs = m.get("documents");
    try {
      ChatInput input =
          new ChatInput(
              VllmChat.normalize(messages, tokenizer.contentFormat()),
              (List<Object>) tools,
              docs instanceof List<?> d ? (List<Object>) d : null,
              !(agp instanceof Boolean b) || b,
              Boolean.TRUE.equals(m.get("continue_final_message")),
              kwargs == null ? Map.of() : (Map<String, Object>) kwargs);
      // Images, audio and video are opaque content: deterministic tokens per medium (ImageTokens).
      MediaRefs.Media media = MediaRefs.of(m);
      if (divergentTemplate != null) {
        String rendered = divergentTemplate + tokenizer.render(input);
        return ImageTokens.withMedia(
            media,
            addSpecialTokens
                ? tokenizer.tokenizer().encode(rendered, true)
                : tokenizer.encodeRendered(rendered));
      }
      if (addSpecialTokens) {
        return ImageTokens.withMedia(
            media, tokenizer.tokenizer().encode(tokenizer.render(input), true));
      }
      return ImageTokens.withMedia(media, tokenizer.encodeChat(input).ids());
    } catch (VllmChat.InvalidMessage e) {
      throw ApiError.badRequest(e.getMessage(), "messages");
    } catch (ChatTemplateException | TokenizerException e) {
      throw ApiError.badRequest("chat template failed: " + e.getMessage(), "messages");
    }
  }

  private int[] completionIds(Object prompt, boolean addSpecialTokens) throws ApiError {
    if (prompt instanceof String s) {
      return addSpecialTokens ? tokenizer.encodeText(s).ids() : tokenizer.encodeRendered(s);
    }
    if (prompt instanceof List<?> list && !list.isEmpty()) {
      int[] ids = new int[list.size()];
      for (int i = 0; i < ids.length; i++) {
        if (!(list.get(i) instanceof Long l) || l < 0 || l > Integer.MAX_VALUE) {
          throw ApiError.badRequest("'prompt' token ids must be non-negative integers", "prompt");
        }
        ids[i] = (int) (long) l;
      }
      return ids;
    }
    throw ApiError.badRequest(
        "'prompt' must be a string, an array of token ids, or an array of those", "prompt");
  }
}
