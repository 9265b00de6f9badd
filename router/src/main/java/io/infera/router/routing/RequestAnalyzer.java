package io.infera.router.routing;

import io.infera.router.config.RouterConfig;
import io.infera.router.json.Json;
import io.infera.router.json.JsonException;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.ChainMemo;
import io.infera.router.kv.RequestHasher;
import io.infera.router.kv.RequestHashes;
import io.infera.router.policy.InputTokens;
import io.infera.router.tokenize.AnthropicChat;
import io.infera.router.tokenize.ChatInput;
import io.infera.router.tokenize.ChatTemplateException;
import io.infera.router.tokenize.ContentFormat;
import io.infera.router.tokenize.Prompt;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.ResponsesChat;
import io.infera.router.tokenize.TokenizeBudgetException;
import io.infera.router.tokenize.Tokenized;
import io.infera.router.tokenize.TokenizerException;
import io.infera.router.tokenize.VllmChat;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a request body into what routing needs: validation (400/404 failures), the prompt, its
 * tokens (vLLM's way) and router block hashes. CPU-heavy: called on the tokenize worker pool, never
 * on an event loop. Tokenization problems never fail a request: it is routed by load and the reason
 * is counted.
 */
public final class RequestAnalyzer {

  private static final Logger log = LoggerFactory.getLogger(RequestAnalyzer.class);

  /**
   * The proxied endpoints (docs/architecture.md, "HTTP API"). The generation endpoints are routed
   * by their prompt: chat and completions as they come, an Anthropic Messages or OpenAI Responses
   * body rendered as the chat request the engine converts it to. The others are passed through
   * routed by load alone. Each answers its failures in its API's error shape.
   */
  public enum Endpoint {
    CHAT("/v1/chat/completions", false, false),
    COMPLETIONS("/v1/completions", false, false),
    /** Anthropic's Messages API (vLLM and SGLang serve it). */
    MESSAGES("/v1/messages", true, false),
    /** OpenAI's Responses API (vLLM serves it). */
    RESPONSES("/v1/responses", false, false),
    EMBEDDINGS("/v1/embeddings", false, true),
    TOKENIZE("/tokenize", false, true),
    DETOKENIZE("/detokenize", false, true);

    private final String path;
    private final boolean anthropic;
    private final boolean byLoad;

    Endpoint(String path, boolean anthropic, boolean byLoad) {
      this.path = path;
      this.anthropic = anthropic;
      this.byLoad = byLoad;
    }

    public String path() {
      return path;
    }

    /** Failures are answered in Anthropic's error shape (else OpenAI's). */
    public boolean anthropicErrors() {
      return anthropic;
    }

    /** Passed through routed by load alone: the body has no prompt to match. */
    public boolean byLoad() {
      return byLoad;
    }

    /** The prompt is a chat rendered with the chat template. */
    public boolean rendersChat() {
      return this == CHAT || this == MESSAGES || this == RESPONSES;
    }

    /** The endpoint served at {@code path}, if any. */
    public static Optional<Endpoint> forPath(String path) {
      for (Endpoint e : values()) {
        if (e.path.equals(path)) {
          return Optional.of(e);
        }
      }
      return Optional.empty();
    }
  }

  /**
   * An analysed request.
   *
   * @param prompt the prompt, for engine-mode tokenization
   * @param hashes router block hashes, one chain per block size in use (empty: route by load)
   * @param tokens prompt tokens, or -1 when unknown
   * @param firstParent the hash chain's first parent (LoRA / cache salt), for engine mode
   * @param tokenizeFailure why the prompt could not be tokenized, or null
   * @param input the input tokens decode input demand counts ({@link InputTokenCount}); null
   *     derives them from {@code body} and {@code tokens}
   * @param media the request's images, audio and video as keys ({@link MediaRefs}); {@link
   *     MediaRefs.Media#NONE} for a text-only request
   * @param chatRequest the body as the OpenAI chat request it renders as: the body itself for a
   *     chat, the converted request for Messages and Responses (what engine-mode tokenization
   *     sends), null otherwise
   */
  public record Analyzed(
      Endpoint endpoint,
      Map<String, Object> body,
      String model,
      boolean stream,
      Prompt prompt,
      RequestHashes hashes,
      int tokens,
      long firstParent,
      long analyzeNanos,
      String tokenizeFailure,
      InputTokens input,
      MediaRefs.Media media,
      Map<String, Object> chatRequest) {

    public Analyzed {
      media = media == null ? MediaRefs.Media.NONE : media;
      if (input == null) {
        input =
            body == null ? InputTokens.NONE : InputTokenCount.of(body, tokens, media.multimodal());
      }
    }

    /**
     * A text-only analysis whose input tokens are derived from its body and token count, and whose
     * chat request, if any, is the body itself.
     */
    public Analyzed(
        Endpoint endpoint,
        Map<String, Object> body,
        String model,
        boolean stream,
        Prompt prompt,
        RequestHashes hashes,
        int tokens,
        long firstParent,
        long analyzeNanos,
        String tokenizeFailure) {
      this(
          endpoint,
          body,
          model,
          stream,
          prompt,
          hashes,
          tokens,
          firstParent,
          analyzeNanos,
          tokenizeFailure,
          null,
          MediaRefs.Media.NONE,
          endpoint == Endpoint.CHAT ? body : null);
    }

    /** An analysis with only the page-size chain (tests, callers that hash themselves). */
    public Analyzed(
        Endpoint endpoint,
        Map<String, Object> body,
        String model,
        boolean stream,
        Prompt prompt,
        long[] hashes,
        int tokens,
        long firstParent,
        long analyzeNanos,
        String tokenizeFailure) {
      this(
          endpoint,
          body,
          model,
          stream,
          prompt,
          RequestHashes.of(hashes),
          tokens,
          firstParent,
          analyzeNanos,
          tokenizeFailure);
    }

    /** As {@link #withTokens(RequestHashes, int, String)} with only the page-size chain. */
    public Analyzed withTokens(long[] newHashes, int newTokens, String failure) {
      return withTokens(RequestHashes.of(newHashes), newTokens, failure);
    }

    /**
     * The same request with tokens obtained elsewhere (the engine's /tokenize): their count is
     * exact unless the request has media; without one the estimate made at analysis stays.
     */
    public Analyzed withTokens(RequestHashes newHashes, int newTokens, String failure) {
      InputTokens in = newTokens >= 0 ? input.counted(newTokens) : input;
      return new Analyzed(
          endpoint,
          body,
          model,
          stream,
          prompt,
          newHashes,
          newTokens,
          firstParent,
          analyzeNanos,
          failure,
          in,
          media,
          chatRequest);
    }

    /** True when the local tokenizer was absent and the engine should tokenize. */
    public boolean needsEngineTokens() {
      return hashes.isEmpty()
          && tokens < 0
          && tokenizeFailure == null
          && (prompt instanceof Prompt.Text || prompt instanceof Prompt.Chat);
    }
  }

  /** Analysis outcome. */
  public sealed interface Result {
    record Ok(Analyzed analyzed) implements Result {}

    record Failed(RoutingFailure failure) implements Result {}
  }

  private final RouterConfig config;
  private final Supplier<PromptTokenizer> tokenizer;
  private final RoutingMetrics metrics;
  private final ThreadLocal<RequestHasher> hasher;
  // Page-size chains of recent prompts, reused for the prefix the tokenizer reused.
  private final ChainMemo chains = new ChainMemo();
  private final Supplier<int[]> otherBlockSizes;

  /** An analyzer for a fleet that uses only the configured page size. */
  public RequestAnalyzer(RouterConfig config, PromptTokenizer tokenizer, RoutingMetrics metrics) {
    this(config, tokenizer, metrics, () -> new int[0]);
  }

  /**
   * @param tokenizer the local tokenizer, or null in {@code engine} mode (hashes are then left
   *     empty and filled by the HTTP layer from the engine's {@code /tokenize})
   * @param otherBlockSizes the block sizes besides {@code pageSize} workers use now ({@code
   *     PrefixIndex::otherBlockSizes}); each request is hashed once at every one of them
   */
  public RequestAnalyzer(
      RouterConfig config,
      PromptTokenizer tokenizer,
      RoutingMetrics metrics,
      Supplier<int[]> otherBlockSizes) {
    this(config, () -> tokenizer, metrics, otherBlockSizes);
  }

  /**
   * As above, the tokenizer read per request: the runtime loads it late when its files appear after
   * the start.
   */
  public RequestAnalyzer(
      RouterConfig config,
      Supplier<PromptTokenizer> tokenizer,
      RoutingMetrics metrics,
      Supplier<int[]> otherBlockSizes) {
    this.config = config;
    this.tokenizer = tokenizer;
    this.metrics = metrics;
    this.otherBlockSizes = otherBlockSizes;
    this.hasher = ThreadLocal.withInitial(() -> new RequestHasher(config.pageSize(), chains));
  }

  /** Hashes engine-provided token ids for a request (engine mode), at every block size in use. */
  public RequestHashes hash(int[] ids, long firstParent) {
    return hash(ids, firstParent, null, 0);
  }

  /** As above, reusing the chain of the prompt the tokenizer copied the first ids from. */
  private RequestHashes hash(int[] ids, long firstParent, int[] reusedFrom, int reusedTokens) {
    return hasher.get().hash(ids, firstParent, otherBlockSizes.get(), reusedFrom, reusedTokens);
  }

  /** As {@link #analyze(byte[], Endpoint, BooleanSupplier)} for a client that stays. */
  public Result analyze(byte[] bodyBytes, Endpoint endpoint) {
    return analyze(bodyBytes, endpoint, () -> false);
  }

  /**
   * Analyses one request body. Before tokenizing, the prompt is held against the tokenization
   * budget ({@code limits.tokenizeMaxChars}): a longer one is routed by load with reason {@code
   * too_long}, and a chat whose messages are already longer is not even rendered.
   *
   * @param clientGone read between steps: once true, the analysis stops without tokenizing and
   *     returns {@link RoutingFailure.ClientGone}
   */
  @SuppressWarnings("unchecked")
  public Result analyze(byte[] bodyBytes, Endpoint endpoint, BooleanSupplier clientGone) {
    long t0 = System.nanoTime();
    PromptTokenizer tokenizer = this.tokenizer.get();
    Object parsed;
    try {
      parsed = Json.parse(bodyBytes);
    } catch (JsonException e) {
      return bad("request body is not valid JSON: " + e.getMessage(), null);
    }
    if (!(parsed instanceof Map)) {
      return bad("request body must be a JSON object", null);
    }
    if (clientGone.getAsBoolean()) {
      return GONE;
    }
    Map<String, Object> body = (Map<String, Object>) parsed;
    Object modelValue = body.get("model");
    String model = config.model();
    if (modelValue != null) {
      if (!(modelValue instanceof String m)) {
        return bad("'model' must be a string", "model");
      }
      model = m;
      if (!model.equals(config.model()) && !config.loraAdapters().contains(model)) {
        return new Result.Failed(
            new RoutingFailure.UnknownModel("The model `" + model + "` does not exist."));
      }
    }
    Object streamValue = body.get("stream");
    if (streamValue != null && !(streamValue instanceof Boolean)) {
      return bad("'stream' must be a boolean", "stream");
    }
    boolean stream = Boolean.TRUE.equals(streamValue);
    String lora = config.loraAdapters().contains(model) ? model : null;
    Object saltValue = body.get("cache_salt");
    if (saltValue != null && !(saltValue instanceof String)) {
      return bad("'cache_salt' must be a string", "cache_salt");
    }
    long firstParent = BlockHasher.firstParent(lora, (String) saltValue);

    Prompt prompt = null;
    Map<String, Object> chatRequest = null;
    String failure = null;
    switch (endpoint) {
      case CHAT -> chatRequest = body;
      case MESSAGES -> {
        Object maxTokens = body.get("max_tokens");
        if (!(maxTokens instanceof Long n) || n < 1) {
          return bad("'max_tokens' must be a positive integer", "max_tokens");
        }
        try {
          chatRequest = AnthropicChat.toChatRequest(body, AnthropicChat.InlineSystem.PRESERVE);
        } catch (VllmChat.InvalidMessage e) {
          return bad(e.getMessage(), "messages");
        }
      }
      case RESPONSES -> {
        try {
          ResponsesChat.Outcome outcome = ResponsesChat.toChatRequest(body);
          if (outcome instanceof ResponsesChat.Outcome.Chat c) {
            chatRequest = c.request();
          } else {
            failure = ((ResponsesChat.Outcome.ByLoad) outcome).reason();
          }
        } catch (VllmChat.InvalidMessage e) {
          return bad(e.getMessage(), "input");
        }
      }
      case COMPLETIONS -> {
        Object p = body.get("prompt");
        if (p == null) {
          return bad("'prompt' is required", "prompt");
        }
        Optional<Prompt> completion = completionPrompt(p);
        if (completion.isEmpty()) {
          return bad(
              "'prompt' must be a string, an array of token ids, or an array of those", "prompt");
        }
        prompt = completion.get();
      }
      case EMBEDDINGS, TOKENIZE, DETOKENIZE -> {
        // passed through by load: nothing to render
      }
    }
    if (chatRequest != null) {
      Object chat = chatPrompt(chatRequest, tokenizer);
      if (chat instanceof Result.Failed f) {
        return f;
      }
      prompt = (Prompt) chat;
    }

    RequestHashes hashes = RequestHashes.empty();
    int tokens = -1;
    if (clientGone.getAsBoolean()) {
      return GONE;
    }
    long maxChars = config.limits().analysis().tokenizeMaxChars();
    if (prompt == null) {
      // by load: a pass-through endpoint, or a Responses request the router cannot render
    } else if (promptChars(prompt, maxChars) > maxChars) {
      // Counted before rendering or tokenizing: the tokenizer never sees it (and nor does the
      // engine's /tokenize in engine mode); the engine answers the request as it would.
      failure = TokenizeBudgetException.TOO_LONG;
      log.debug("not tokenized reason=too_long limit={}", maxChars);
    } else if (tokenizer != null) {
      try {
        Optional<Tokenized> t = tokenizer.tokenize(prompt);
        if (t.isPresent()) {
          Tokenized tk = t.get();
          tokens = tk.ids().length;
          hashes = hash(tk.ids(), firstParent, tk.reusedFrom(), tk.reusedTokens());
        } else {
          failure = "batch";
        }
      } catch (TokenizeBudgetException e) {
        failure = e.reason();
        log.debug("not tokenized reason={} msg={}", e.reason(), e.getMessage());
      } catch (ChatTemplateException e) {
        if (e.overBudget() && prompt instanceof Prompt.Chat chat && chat.template() != null) {
          // The client's own template: its fault, and a 400 that names the limit.
          return bad(
              "'chat_template' exceeds the router's template budget: "
                  + e.describe()
                  + " (set by "
                  + e.budgetKey()
                  + ")",
              "chat_template");
        }
        // The model's template: route by load, as for any untokenizable prompt.
        failure = e.overBudget() ? "template_budget" : "template";
        log.debug("tokenize failed reason={} msg={}", failure, e.getMessage());
      } catch (TokenizerException e) {
        failure = "no_template";
      } catch (RuntimeException e) {
        failure = "tokenizer_error";
        log.warn("tokenize failed reason=tokenizer_error error={}", e.toString());
      }
    } else if (prompt instanceof Prompt.Tokens t) {
      tokens = t.ids().length;
      hashes = hash(t.ids(), firstParent);
    } else if (prompt instanceof Prompt.Batch) {
      failure = "batch";
    }
    if (failure != null && metrics != null) {
      metrics.tokenizeFailed(failure);
    }
    // Keys only: the references (a data: URI may be megabytes) stay in the body alone.
    MediaRefs.Media media = MediaRefs.of(body);
    if (media.multimodal() && metrics != null) {
      metrics.multimodal(media);
    }
    long nanos = System.nanoTime() - t0;
    if (metrics != null) {
      metrics.tokenized(nanos);
    }
    return new Result.Ok(
        new Analyzed(
            endpoint,
            body,
            model,
            stream,
            prompt,
            hashes,
            tokens,
            firstParent,
            nanos,
            failure,
            null,
            media,
            chatRequest));
  }

  /**
   * The prompt of an OpenAI chat request (the client's, or the one a Messages or Responses body
   * converts to), or the {@link Result.Failed} that rejects it.
   */
  @SuppressWarnings("unchecked")
  private static Object chatPrompt(Map<String, Object> body, PromptTokenizer tokenizer) {
    Object messages = body.get("messages");
    if (!(messages instanceof List<?> list) || list.isEmpty()) {
      return bad("'messages' must be a non-empty array", "messages");
    }
    Object tools = body.get("tools");
    if (tools != null && !(tools instanceof List)) {
      return bad("'tools' must be an array", "tools");
    }
    Object kwargs = body.get("chat_template_kwargs");
    if (kwargs != null && !(kwargs instanceof Map)) {
      return bad("'chat_template_kwargs' must be an object", "chat_template_kwargs");
    }
    Object requestTemplate = body.get("chat_template");
    if (requestTemplate != null && !(requestTemplate instanceof String)) {
      return bad("'chat_template' must be a string", "chat_template");
    }
    ContentFormat format = tokenizer == null ? ContentFormat.STRING : tokenizer.contentFormat();
    List<Object> normalized;
    try {
      normalized = VllmChat.normalize(list, format);
    } catch (VllmChat.InvalidMessage e) {
      return bad(e.getMessage(), "messages");
    }
    Object agp = body.get("add_generation_prompt");
    Object docs = body.get("documents");
    return new Prompt.Chat(
        new ChatInput(
            normalized,
            (List<Object>) tools,
            docs instanceof List<?> d ? (List<Object>) d : null,
            !(agp instanceof Boolean b) || b,
            Boolean.TRUE.equals(body.get("continue_final_message")),
            kwargs == null ? Map.of() : (Map<String, Object>) kwargs),
        (String) requestTemplate);
  }

  private static final Result GONE =
      new Result.Failed(new RoutingFailure.ClientGone("the client closed the connection"));

  /**
   * The prompt's characters as far as they count against the budget: a text's length, the string
   * values in a chat's messages, tools and documents (the template adds little; the rendered text
   * is checked again before encoding). Counting stops past {@code cap}.
   */
  static long promptChars(Prompt prompt, long cap) {
    if (prompt instanceof Prompt.Text t) {
      return t.text().length();
    }
    if (prompt instanceof Prompt.Chat c) {
      long n = stringChars(c.input().messages(), 0, cap);
      n = stringChars(c.input().tools(), n, cap);
      return stringChars(c.input().documents(), n, cap);
    }
    // token arrays are not tokenized; a batch is routed by load anyway
    return 0;
  }

  private static long stringChars(Object v, long n, long cap) {
    if (n > cap || v == null) {
      return n;
    }
    if (v instanceof String s) {
      return n + s.length();
    }
    if (v instanceof Map<?, ?> m) {
      for (Object value : m.values()) {
        n = stringChars(value, n, cap);
      }
      return n;
    }
    if (v instanceof List<?> l) {
      for (Object o : l) {
        n = stringChars(o, n, cap);
      }
    }
    return n;
  }

  private static Optional<Prompt> completionPrompt(Object p) {
    if (p instanceof String s) {
      return Optional.of(new Prompt.Text(s));
    }
    if (!(p instanceof List<?> list) || list.isEmpty()) {
      return Optional.empty();
    }
    if (list.get(0) instanceof Number) {
      int[] ids = new int[list.size()];
      for (int i = 0; i < ids.length; i++) {
        if (!(list.get(i) instanceof Long l) || l < 0 || l > Integer.MAX_VALUE) {
          return Optional.empty();
        }
        ids[i] = (int) (long) l;
      }
      return Optional.of(new Prompt.Tokens(ids));
    }
    for (Object o : list) {
      if (!(o instanceof String) && !(o instanceof List)) {
        return Optional.empty();
      }
    }
    if (list.size() == 1) {
      return completionPrompt(list.get(0));
    }
    return Optional.of(new Prompt.Batch(new ArrayList<>(list)));
  }

  private static Result bad(String message, String param) {
    return new Result.Failed(new RoutingFailure.BadRequest(message, param));
  }
}
