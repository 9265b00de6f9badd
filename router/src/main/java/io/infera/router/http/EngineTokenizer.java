package io.infera.router.http;

import io.infera.router.config.RouterConfig;
import io.infera.router.json.Json;
import io.infera.router.json.JsonException;
import io.infera.router.routing.Fleet;
import io.infera.router.routing.RequestAnalyzer;
import io.infera.router.routing.RequestAnalyzer.Analyzed;
import io.infera.router.routing.RequestAnalyzer.Endpoint;
import io.infera.router.routing.RequestRouter;
import io.infera.router.routing.RoutingMetrics;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code tokenizer.mode: engine}: asks a worker's {@code POST /tokenize} (vLLM's API) for a
 * prompt's tokens — exact by construction, one extra hop. The worker is the router's choice ({@link
 * RequestRouter#tokenizeWorker}); on any failure the request is routed by load and the failure
 * counted, never failed.
 */
final class EngineTokenizer {

  private static final Logger log = LoggerFactory.getLogger(EngineTokenizer.class);

  /** The chat fields vLLM's {@code /tokenize} renders a chat prompt from. */
  private static final List<String> CHAT_FIELDS =
      List.of(
          "messages",
          "tools",
          "add_generation_prompt",
          "continue_final_message",
          "chat_template_kwargs",
          "documents",
          "chat_template");

  private final HttpClient client;
  private final RouterConfig.Limits limits;
  private final RequestRouter router;
  private final RequestAnalyzer analyzer;
  private final RoutingMetrics metrics;
  private final boolean enabled;

  /**
   * @param enabled false when the router tokenizes locally: then analyses pass through unchanged
   */
  EngineTokenizer(
      HttpClient client,
      RouterConfig.Limits limits,
      RequestRouter router,
      RequestAnalyzer analyzer,
      RoutingMetrics metrics,
      boolean enabled) {
    this.client = client;
    this.limits = limits;
    this.router = router;
    this.analyzer = analyzer;
    this.metrics = metrics;
    this.enabled = enabled;
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
    RequestOptions opts =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setAbsoluteURI(member.get().info().url() + "/tokenize")
            .setConnectTimeout(limits.connectTimeoutMs())
            .setIdleTimeout(Math.min(30_000, limits.firstByteTimeoutMs()))
            .putHeader("content-type", "application/json");
    long t0 = System.nanoTime();
    return client
        .request(opts)
        .compose(r -> r.send(Json.write(tokenizeRequest(analyzed))))
        .compose(
            resp ->
                resp.statusCode() == 200
                    ? resp.body()
                    : Future.<Buffer>failedFuture("tokenize answered " + resp.statusCode()))
        .map(
            buf -> {
              int[] ids = tokenIds(buf.getBytes());
              metrics.tokenized(System.nanoTime() - t0);
              return analyzed.withTokens(
                  analyzer.hash(ids, analyzed.firstParent()), ids.length, null);
            })
        .recover(
            e -> {
              log.debug("engine tokenize failed request_id={} error={}", requestId, e.toString());
              metrics.tokenizeFailed("engine");
              return Future.succeededFuture(analyzed.withTokens(new long[0], -1, "engine"));
            });
  }

  /** The {@code /tokenize} body: the model plus the prompt's fields, special tokens as served. */
  static Map<String, Object> tokenizeRequest(Analyzed analyzed) {
    Map<String, Object> req = new LinkedHashMap<>();
    Map<String, Object> body = analyzed.body();
    req.put("model", analyzed.model());
    if (analyzed.endpoint() == Endpoint.CHAT) {
      for (String k : CHAT_FIELDS) {
        if (body.containsKey(k)) {
          req.put(k, body.get(k));
        }
      }
      req.put("add_special_tokens", false);
    } else {
      req.put("prompt", body.get("prompt"));
      req.put("add_special_tokens", true);
    }
    return req;
  }

  /**
   * The token ids of a {@code /tokenize} answer (outside input).
   *
   * @throws IllegalStateException when it is not JSON or has no list of numeric {@code tokens}
   */
  static int[] tokenIds(byte[] answer) {
    try {
      Object parsed = Json.parse(answer);
      if (parsed instanceof Map<?, ?> m && m.get("tokens") instanceof List<?> tokens) {
        int[] ids = new int[tokens.size()];
        for (int i = 0; i < ids.length; i++) {
          if (!(tokens.get(i) instanceof Number n)) {
            throw new IllegalStateException("/tokenize answer has a token that is not a number");
          }
          ids[i] = n.intValue();
        }
        return ids;
      }
    } catch (JsonException e) {
      throw new IllegalStateException("unreadable /tokenize answer: " + e.getMessage());
    }
    throw new IllegalStateException("/tokenize answer has no tokens");
  }
}
