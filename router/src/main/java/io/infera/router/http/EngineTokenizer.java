package io.infera.router.http;

import io.infera.router.config.RouterConfig;
import io.infera.router.json.Json;
import io.infera.router.json.JsonException;
import io.infera.router.routing.Fleet;
import io.infera.router.routing.RequestAnalyzer;
import io.infera.router.routing.RequestAnalyzer.Analyzed;
import io.infera.router.routing.RequestRouter;
import io.infera.router.routing.RoutingMetrics;
import io.infera.router.tokenize.Prompt;
import io.vertx.core.Future;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code tokenizer.mode: engine}: asks a worker's {@code POST /tokenize} for a prompt's tokens —
 * exact by construction, one extra hop. The worker is the router's choice ({@link
 * RequestRouter#tokenizeWorker}: mixed, else prefill, else decode); the body is the form its engine
 * takes (docs/routing.md, "Tokenization"). On any failure the request is routed by load and the
 * failure counted by reason, never failed: {@code engine_chat} when a worker refuses the chat form
 * (4xx; warned once per worker), {@code engine} otherwise. Bodies are written and answers read on
 * the worker pool.
 */
final class EngineTokenizer {

  private static final Logger log = LoggerFactory.getLogger(EngineTokenizer.class);

  /** The failure reason of a chat request whose {@code /tokenize} answered 4xx. */
  static final String CHAT_REFUSED = "engine_chat";

  /** The failure reason of every other engine tokenization failure. */
  static final String FAILED = "engine";

  /**
   * vLLM's {@code TokenizeChatRequest} fields (0.33.0) taken from the client's chat request as they
   * are; {@code add_special_tokens}, {@code documents} and {@code reasoning_effort} are mapped.
   */
  private static final List<String> VLLM_CHAT_FIELDS =
      List.of(
          "messages",
          "tools",
          "add_generation_prompt",
          "continue_final_message",
          "chat_template",
          "media_io_kwargs",
          "mm_processor_kwargs");

  /**
   * Chat-request fields never sent to SGLang's {@code /tokenize}: the two that switch it from "as
   * for a chat completion" to its own rendering, and the response framing.
   */
  private static final Set<String> SGLANG_CHAT_DROPPED =
      Set.of("add_generation_prompt", "add_special_tokens", "stream", "stream_options", "prompt");

  /** Most bytes of an error answer read for the log. */
  private static final int ERROR_BYTES = 4096;

  private final HttpClient client;
  private final WorkerExecutor pool;
  private final RouterConfig.Limits limits;
  private final RequestRouter router;
  private final RequestAnalyzer analyzer;
  private final RoutingMetrics metrics;
  private final boolean enabled;
  private final int maxAnswerBytes;

  /** Workers already warned about for refusing the chat form. */
  private final OncePerWorker warnedChat = new OncePerWorker();

  /** A {@code /tokenize} answer with a status other than 200. */
  static final class Refused extends RuntimeException {
    final int status;

    Refused(int status, String body) {
      super("tokenize answered " + status + ": " + body, null, false, false);
      this.status = status;
    }
  }

  /**
   * @param enabled false when the router tokenizes locally: then analyses pass through unchanged
   */
  EngineTokenizer(
      HttpClient client,
      WorkerExecutor pool,
      RouterConfig.Limits limits,
      RequestRouter router,
      RequestAnalyzer analyzer,
      RoutingMetrics metrics,
      boolean enabled) {
    this.client = client;
    this.pool = pool;
    this.limits = limits;
    this.router = router;
    this.analyzer = analyzer;
    this.metrics = metrics;
    this.enabled = enabled;
    this.maxAnswerBytes = maxAnswerBytes(limits.maxBodyBytes());
  }

  /**
   * The largest {@code /tokenize} answer read: a token is at least one byte of the prompt and at
   * most 11 bytes of JSON, plus room for what a chat template adds.
   */
  static int maxAnswerBytes(long maxBodyBytes) {
    return (int) Math.min(Integer.MAX_VALUE - 8, 12 * maxBodyBytes + (1 << 20));
  }

  /** The analysis with the engine's tokens and hashes, or unchanged when none are needed. */
  Future<Analyzed> withEngineTokens(Analyzed analyzed, String requestId) {
    if (!enabled || !analyzed.needsEngineTokens()) {
      return Future.succeededFuture(analyzed);
    }
    Optional<Fleet.Member> member = router.tokenizeWorker(requestId);
    if (member.isEmpty()) {
      return Future.succeededFuture(analyzed);
    }
    String worker = member.get().info().id().value();
    boolean chat = analyzed.endpoint().rendersChat();
    long t0 = System.nanoTime();
    return engineIds(analyzed, member.get(), requestId)
        .compose(
            ids ->
                pool.executeBlocking(
                    () ->
                        analyzed.withTokens(
                            analyzer.hash(ids, analyzed.firstParent()), ids.length, null),
                    false))
        .map(
            a -> {
              metrics.tokenized(System.nanoTime() - t0);
              return a;
            })
        .recover(e -> Future.succeededFuture(failed(analyzed, requestId, worker, chat, e)));
  }

  /**
   * The request's token ids from {@code member}'s {@code POST /tokenize} (the body its engine
   * takes, the answer capped); fails with {@link Refused} for a status other than 200, or the read
   * or parse error.
   */
  Future<int[]> engineIds(Analyzed analyzed, Fleet.Member member, String requestId) {
    String engine = member.info().engine();
    RequestOptions opts =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setAbsoluteURI(member.info().url() + "/tokenize")
            .setConnectTimeout(limits.connectTimeoutMs())
            .setIdleTimeout(Math.min(30_000, limits.firstByteTimeoutMs()))
            .putHeader("content-type", "application/json")
            .putHeader("x-request-id", requestId);
    return pool.executeBlocking(
            () -> Json.write(tokenizeRequest(analyzed, engine)).getBytes(StandardCharsets.UTF_8),
            false)
        .compose(body -> client.request(opts).compose(r -> r.send(Buffer.buffer(body))))
        .compose(
            resp ->
                resp.statusCode() == 200
                    ? Upstream.readAtMost(resp, maxAnswerBytes)
                    : Upstream.readAtMost(resp, 16 * ERROR_BYTES)
                        .recover(e -> Future.succeededFuture(Buffer.buffer()))
                        .compose(
                            b ->
                                Future.failedFuture(
                                    new Refused(resp.statusCode(), snippet(b.getBytes())))))
        .compose(buf -> pool.executeBlocking(() -> tokenIds(buf.getBytes()), false));
  }

  /** Hashes ids as the analysis would (every block size in use), for another worker's tokens. */
  io.infera.router.kv.RequestHashes hash(int[] ids, long firstParent) {
    return analyzer.hash(ids, firstParent);
  }

  private Analyzed failed(
      Analyzed analyzed, String requestId, String worker, boolean chat, Throwable e) {
    String reason =
        chat && e instanceof Refused r && r.status >= 400 && r.status < 500 ? CHAT_REFUSED : FAILED;
    if (reason.equals(CHAT_REFUSED) && warnedChat.first(worker)) {
      log.warn(
          "worker refused the chat form of /tokenize; its chat requests are routed by load"
              + " (use tokenizer.mode: local for this engine) worker={} error={}",
          worker,
          e.getMessage());
    } else {
      log.debug(
          "engine tokenize failed request_id={} worker={} reason={} error={}",
          requestId,
          worker,
          reason,
          e.toString());
    }
    metrics.tokenizeFailed(reason);
    return analyzed.withTokens(new long[0], -1, reason);
  }

  /** The first bytes of an error answer, for a log line. */
  static String snippet(byte[] body) {
    String s = new String(body, 0, Math.min(body.length, ERROR_BYTES), StandardCharsets.UTF_8);
    return s.replaceAll("\\s+", " ").strip();
  }

  /**
   * The {@code /tokenize} body in the form {@code engine} takes: the model and a completion's
   * prompt as one string, or a chat request's messages and the fields its rendering depends on (for
   * Messages and Responses, those of the chat request they convert to).
   *
   * @param engine the worker's engine; anything but {@code sglang} gets vLLM's form
   */
  static Map<String, Object> tokenizeRequest(Analyzed analyzed, String engine) {
    // Messages and Responses bodies are tokenized as the chat request they convert to.
    Map<String, Object> body = analyzed.chatRequest();
    if (body == null) {
      Map<String, Object> req = new LinkedHashMap<>();
      req.put("model", analyzed.model());
      // vLLM's TokenizeCompletionRequest.prompt is a str: a one-element list is sent unwrapped.
      req.put("prompt", ((Prompt.Text) analyzed.prompt()).text());
      req.put("add_special_tokens", true);
      return req;
    }
    return "sglang".equals(engine) ? sglangChat(analyzed, body) : vllmChat(analyzed, body);
  }

  /**
   * vLLM's {@code TokenizeChatRequest}. Its chat completion also renders with {@code documents},
   * {@code reasoning_effort} and an {@code enable_thinking} derived from it; they reach the
   * template as {@code chat_template_kwargs}, which /tokenize takes, so they are folded in there,
   * overriding the client's kwargs as the chat completion does.
   */
  private static Map<String, Object> vllmChat(Analyzed analyzed, Map<String, Object> body) {
    Map<String, Object> req = new LinkedHashMap<>();
    req.put("model", analyzed.model());
    for (String k : VLLM_CHAT_FIELDS) {
      if (body.containsKey(k)) {
        req.put(k, body.get(k));
      }
    }
    Map<String, Object> kwargs = new LinkedHashMap<>();
    if (body.get("chat_template_kwargs") instanceof Map<?, ?> user) {
      user.forEach((k, v) -> kwargs.put(String.valueOf(k), v));
    }
    boolean userThinking = kwargs.containsKey("enable_thinking");
    Object documents = body.get("documents");
    if (documents != null && !"auto".equals(documents)) {
      kwargs.put("documents", documents);
    }
    Object effort = body.get("reasoning_effort");
    if (effort != null) {
      if (!"auto".equals(effort)) {
        kwargs.put("reasoning_effort", effort);
      }
      if (!userThinking) {
        kwargs.put("enable_thinking", !"none".equals(effort));
      }
    }
    if (!kwargs.isEmpty() || body.containsKey("chat_template_kwargs")) {
      req.put("chat_template_kwargs", kwargs);
    }
    req.put(
        "add_special_tokens",
        body.get("add_special_tokens") instanceof Boolean b ? b : Boolean.FALSE);
    return req;
  }

  /**
   * SGLang's {@code /tokenize} (0.5.23) with {@code messages} and without {@code
   * add_generation_prompt} renders them as for a chat completion, from the same fields (it passes
   * unknown ones on), so the chat request goes as it came, less the fields in {@link
   * #SGLANG_CHAT_DROPPED}.
   */
  private static Map<String, Object> sglangChat(Analyzed analyzed, Map<String, Object> body) {
    Map<String, Object> req = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : body.entrySet()) {
      if (!SGLANG_CHAT_DROPPED.contains(e.getKey())) {
        req.put(e.getKey(), e.getValue());
      }
    }
    req.put("model", analyzed.model());
    return req;
  }

  /**
   * The token ids of a {@code /tokenize} answer (outside input).
   *
   * @throws IllegalStateException when it is not JSON or has no list of token ids (integers from 0
   *     to {@link Integer#MAX_VALUE})
   */
  static int[] tokenIds(byte[] answer) {
    try {
      Object parsed = Json.parse(answer);
      if (parsed instanceof Map<?, ?> m && m.get("tokens") instanceof List<?> tokens) {
        int[] ids = new int[tokens.size()];
        for (int i = 0; i < ids.length; i++) {
          if (!(tokens.get(i) instanceof Long n) || n < 0 || n > Integer.MAX_VALUE) {
            throw new IllegalStateException("/tokenize answer has a token that is not a token id");
          }
          ids[i] = (int) (long) n;
        }
        return ids;
      }
    } catch (JsonException e) {
      throw new IllegalStateException("unreadable /tokenize answer: " + e.getMessage());
    }
    throw new IllegalStateException("/tokenize answer has no tokens");
  }
}
