package io.infera.router.http;

import io.infera.router.config.Role;
import io.infera.router.json.Json;
import io.infera.router.json.JsonException;
import io.infera.router.kv.WorkerId;
import io.infera.router.routing.Fleet;
import io.infera.router.routing.RequestAnalyzer;
import io.infera.router.routing.RequestAnalyzer.Analyzed;
import io.infera.router.routing.RequestAnalyzer.Endpoint;
import io.infera.router.routing.RequestRouter;
import io.infera.router.routing.RoutePlan;
import io.infera.router.routing.RoutingFailure;
import io.infera.router.runtime.RouterRuntime;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;
import io.vertx.ext.web.RoutingContext;
import java.net.ConnectException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/chat/completions} and {@code /v1/completions}: analyse (off the event loop), pick
 * and book, forward with the pooled client, stream the answer back unchanged with backpressure. A
 * failure before the first byte is retried on another worker; every ending (completion, client
 * disconnect, failure) releases the booking exactly once.
 */
final class ProxyHandler {

  private static final Logger log = LoggerFactory.getLogger(ProxyHandler.class);

  private static final Set<String> HOP_BY_HOP =
      Set.of(
          "connection",
          "keep-alive",
          "proxy-authenticate",
          "proxy-authorization",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade",
          "host",
          "content-length");

  private final RouterRuntime rt;
  private final HttpClient client;
  private final WorkerExecutor pool;

  ProxyHandler(RouterRuntime rt, HttpClient client, WorkerExecutor pool) {
    this.rt = rt;
    this.client = client;
    this.pool = pool;
  }

  /** One client request across its attempts. */
  private static final class Exchange {
    final RoutingContext ctx;
    final String requestId;
    final Endpoint endpoint;
    final byte[] body;
    final long start = System.nanoTime();
    final Set<WorkerId> tried = new HashSet<>();
    Analyzed analyzed;
    RoutePlan plan;
    // Disaggregated: the prefill half (the client gets the decode worker's response).
    RoutePlan prefillPlan;
    HttpClientRequest prefillUpstream;
    boolean responding;
    HttpClientRequest upstream;
    RoutingFailure lastUpstreamFailure;
    boolean clientGone;
    boolean finished;

    Exchange(RoutingContext ctx, String requestId, Endpoint endpoint, byte[] body) {
      this.ctx = ctx;
      this.requestId = requestId;
      this.endpoint = endpoint;
      this.body = body;
    }
  }

  void handle(RoutingContext ctx, Endpoint endpoint) {
    String requestId = RouterServer.requestId(ctx);
    if (rt.shuttingDown()) {
      fail(ctx, requestId, new RoutingFailure.ShuttingDown("the router is shutting down"));
      return;
    }
    Buffer body = ctx.body().buffer();
    if (body == null || body.length() == 0) {
      fail(ctx, requestId, new RoutingFailure.BadRequest("request body is empty", null));
      return;
    }
    Exchange ex = new Exchange(ctx, requestId, endpoint, body.getBytes());
    ctx.response().closeHandler(v -> clientGone(ex));
    pool.executeBlocking(() -> rt.analyzer().analyze(ex.body, endpoint), false)
        .onComplete(
            ar -> {
              if (ex.clientGone) {
                return;
              }
              if (ar.failed()) {
                log.error("analyze failed request_id={}", requestId, ar.cause());
                fail(ex, new RoutingFailure.Internal("internal error analysing the request"));
                return;
              }
              RequestAnalyzer.Result r = ar.result();
              if (r instanceof RequestAnalyzer.Result.Failed f) {
                fail(ex, f.failure());
                return;
              }
              withEngineTokens(((RequestAnalyzer.Result.Ok) r).analyzed(), requestId)
                  .onComplete(
                      a -> {
                        ex.analyzed = a.result();
                        if (!ex.clientGone) {
                          attempt(ex);
                        }
                      });
            });
  }

  /**
   * {@code tokenizer.mode: engine}: asks a worker's {@code POST /tokenize} (vLLM's API) for the
   * prompt's tokens. Exact by construction, one extra hop; on any failure the request is routed by
   * load and the failure counted. Without engine mode, returns the analysis unchanged.
   */
  Future<Analyzed> withEngineTokens(Analyzed analyzed, String requestId) {
    if (rt.tokenizer() != null || !analyzed.needsEngineTokens()) {
      return Future.succeededFuture(analyzed);
    }
    List<Fleet.Member> members = rt.fleet().routable(Set.of(Role.MIXED), Set.of());
    if (members.isEmpty()) {
      return Future.succeededFuture(analyzed);
    }
    Fleet.Member member = members.get(Math.floorMod(requestId.hashCode(), members.size()));
    Map<String, Object> req = new LinkedHashMap<>();
    Map<String, Object> body = analyzed.body();
    req.put("model", analyzed.model());
    if (analyzed.endpoint() == Endpoint.CHAT) {
      for (String k :
          List.of(
              "messages",
              "tools",
              "add_generation_prompt",
              "continue_final_message",
              "chat_template_kwargs",
              "documents",
              "chat_template")) {
        if (body.containsKey(k)) {
          req.put(k, body.get(k));
        }
      }
      req.put("add_special_tokens", false);
    } else {
      req.put("prompt", body.get("prompt"));
      req.put("add_special_tokens", true);
    }
    RequestOptions opts =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setAbsoluteURI(member.info().url() + "/tokenize")
            .setConnectTimeout(rt.config().limits().connectTimeoutMs())
            .setIdleTimeout(Math.min(30_000, rt.config().limits().firstByteTimeoutMs()))
            .putHeader("content-type", "application/json");
    long t0 = System.nanoTime();
    return client
        .request(opts)
        .compose(r -> r.send(Json.write(req)))
        .compose(
            resp ->
                resp.statusCode() == 200
                    ? resp.body()
                    : Future.<Buffer>failedFuture("tokenize answered " + resp.statusCode()))
        .map(
            buf -> {
              int[] ids = engineIds(buf);
              rt.metrics().tokenized(System.nanoTime() - t0);
              return analyzed.withTokens(
                  rt.analyzer().hash(ids, analyzed.firstParent()), ids.length, null);
            })
        .recover(
            e -> {
              log.debug("engine tokenize failed request_id={} error={}", requestId, e.toString());
              rt.metrics().tokenizeFailed("engine");
              return Future.succeededFuture(analyzed.withTokens(new long[0], -1, "engine"));
            });
  }

  private static int[] engineIds(Buffer buf) {
    try {
      Object parsed = Json.parse(buf.getBytes());
      if (parsed instanceof Map<?, ?> m && m.get("tokens") instanceof List<?> tokens) {
        int[] ids = new int[tokens.size()];
        for (int i = 0; i < ids.length; i++) {
          ids[i] = ((Number) tokens.get(i)).intValue();
        }
        return ids;
      }
    } catch (JsonException | ClassCastException e) {
      throw new IllegalStateException("unreadable /tokenize answer: " + e.getMessage());
    }
    throw new IllegalStateException("/tokenize answer has no tokens");
  }

  private void attempt(Exchange ex) {
    RequestRouter.Pick pick = rt.router().pick(ex.analyzed.hashes(), ex.tried, 0);
    if (pick instanceof RequestRouter.Pick.Failed f) {
      fail(ex, ex.lastUpstreamFailure != null ? ex.lastUpstreamFailure : f.failure());
      return;
    }
    if (pick instanceof RequestRouter.Pick.Pair pair) {
      attemptPair(ex, pair);
      return;
    }
    RoutePlan plan = ((RequestRouter.Pick.Ok) pick).plan();
    ex.plan = plan;
    plan.worker().breaker().tryAcquire();
    long sentAt = System.nanoTime();
    log.debug(
        "route request_id={} worker={} blocks={} hits={} attempt={}",
        ex.requestId,
        plan.worker().info().id(),
        plan.decision().requestBlocks(),
        plan.hitBlocks(),
        ex.tried.size() + 1);
    send(ex, plan, ex.body, req -> ex.upstream = req)
        .onComplete(
            ar -> {
              if (ex.clientGone) {
                plan.booking().release();
                return;
              }
              if (ar.failed()) {
                upstreamFailed(ex, plan, ar.cause());
                return;
              }
              HttpClientResponse resp = ar.result();
              rt.metrics().firstByte(plan.worker().info().id().value(), System.nanoTime() - sentAt);
              if (resp.statusCode() >= 500) {
                plan.worker().breaker().onFault();
                if (canRetry(ex)) {
                  log.info(
                      "retry request_id={} worker={} status={}",
                      ex.requestId,
                      plan.worker().info().id(),
                      resp.statusCode());
                  // Drain the error body so the pooled connection stays usable.
                  drain(resp);
                  plan.booking().release();
                  ex.tried.add(plan.worker().info().id());
                  ex.lastUpstreamFailure =
                      new RoutingFailure.UpstreamFailed(
                          "worker " + plan.worker().info().id() + " answered " + resp.statusCode());
                  rt.metrics().retry();
                  attempt(ex);
                  return;
                }
              } else {
                plan.worker().breaker().onSuccess();
              }
              forward(ex, plan, resp);
            });
  }

  /** SGLang's default {@code --disaggregation-bootstrap-port} of a prefill server. */
  static final int SGLANG_BOOTSTRAP_PORT = 8998;

  /**
   * A disaggregated fleet. SGLang: the same request, with the prefill server's bootstrap address
   * and a fresh room, goes to the prefill and the decode worker at once; the decode worker pulls
   * the KV from the prefill worker and answers the client. vLLM: {@link #attemptVllmPair}.
   */
  private void attemptPair(Exchange ex, RequestRouter.Pick.Pair pair) {
    RoutePlan prefill = pair.prefill();
    RoutePlan decode = pair.decode();
    ex.plan = decode;
    ex.prefillPlan = prefill;
    String engine = prefill.worker().info().engine();
    if (!engine.equals(decode.worker().info().engine())
        || !(engine.equals("sglang") || engine.equals("vllm"))) {
      fail(
          ex,
          new RoutingFailure.NoWorker(
              "prefill/decode pools of engine "
                  + engine
                  + " and "
                  + decode.worker().info().engine()
                  + " have no KV hand-over this router knows (SGLang's bootstrap, vLLM's"
                  + " kv_transfer_params); use mixed pools"));
      return;
    }
    if (engine.equals("vllm")) {
      attemptVllmPair(ex, prefill, decode);
      return;
    }
    String host = java.net.URI.create(prefill.worker().info().url()).getHost();
    long room = java.util.concurrent.ThreadLocalRandom.current().nextLong(Long.MAX_VALUE);
    // Serialising a large body is not event-loop work.
    pool.executeBlocking(
            () -> withBootstrap(ex.analyzed.body(), host, SGLANG_BOOTSTRAP_PORT, room), false)
        .onComplete(
            ar -> {
              if (ex.clientGone) {
                return;
              }
              if (ar.failed()) {
                fail(ex, new RoutingFailure.Internal("internal error preparing the request"));
                return;
              }
              dispatchPair(ex, prefill, decode, ar.result(), room);
            });
  }

  /** Largest prefill answer read for its {@code kv_transfer_params} (a one-token completion). */
  static final int MAX_PREFILL_ANSWER_BYTES = 1 << 20;

  /**
   * vLLM's disaggregated hand-over (the NixlConnector proxy protocol): the prefill worker gets the
   * request as a one-token, non-streaming completion with {@code
   * kv_transfer_params.do_remote_decode}; its answer's {@code kv_transfer_params} (where the KV
   * blocks are) go with the original request to the decode worker, whose answer the client gets.
   * The engines need a {@code --kv-transfer-config} (the operator sets it on vLLM prefill/decode
   * pools).
   */
  private void attemptVllmPair(Exchange ex, RoutePlan prefill, RoutePlan decode) {
    prefill.worker().breaker().tryAcquire();
    String pid = prefill.worker().info().id().value();
    long sentAt = System.nanoTime();
    pool.executeBlocking(() -> vllmPrefillBody(ex.analyzed.body()), false)
        .compose(body -> send(ex, prefill, body, req -> ex.prefillUpstream = req))
        .onComplete(
            ar -> {
              if (ex.clientGone) {
                prefill.booking().release();
                if (ar.succeeded()) {
                  drain(ar.result());
                }
                return;
              }
              if (ar.failed()) {
                prefill.booking().release();
                prefill.worker().breaker().onFault();
                fail(
                    ex,
                    new RoutingFailure.UpstreamFailed(
                        "prefill worker " + pid + " failed before responding: " + ar.cause()));
                return;
              }
              HttpClientResponse resp = ar.result();
              rt.metrics().firstByte(pid, System.nanoTime() - sentAt);
              if (resp.statusCode() >= 400) {
                // The engine's own error (e.g. 400 for a bad request) is the client's answer.
                if (resp.statusCode() >= 500) {
                  prefill.worker().breaker().onFault();
                }
                decode.booking().release();
                ex.plan = prefill;
                ex.prefillPlan = null;
                forward(ex, prefill, resp);
                return;
              }
              prefill.worker().breaker().onSuccess();
              String length = resp.getHeader("content-length");
              if (length != null && parseLong(length) > MAX_PREFILL_ANSWER_BYTES) {
                resp.request().reset();
                prefill.booking().release();
                fail(
                    ex,
                    new RoutingFailure.UpstreamFailed(
                        "prefill worker "
                            + pid
                            + " answered more than "
                            + MAX_PREFILL_ANSWER_BYTES
                            + " bytes"));
                return;
              }
              resp.body()
                  .andThen(b -> prefill.booking().release())
                  .compose(
                      buf ->
                          pool.executeBlocking(
                              () -> vllmDecodeBody(ex.analyzed.body(), buf.getBytes(), pid), false))
                  .onComplete(
                      d -> {
                        if (ex.clientGone || ex.finished) {
                          return;
                        }
                        if (d.failed()) {
                          fail(ex, new RoutingFailure.UpstreamFailed(d.cause().getMessage()));
                          return;
                        }
                        sendDecode(ex, decode, d.result(), System.nanoTime());
                      });
            });
  }

  private static long parseLong(String s) {
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The prefill half of vLLM's hand-over: one token, no stream, KV kept for a remote decode. */
  static byte[] vllmPrefillBody(Map<String, Object> body) {
    Map<String, Object> out = new LinkedHashMap<>(body);
    Map<String, Object> kv = new LinkedHashMap<>();
    kv.put("do_remote_decode", true);
    kv.put("do_remote_prefill", false);
    kv.put("remote_engine_id", null);
    kv.put("remote_block_ids", null);
    kv.put("remote_host", null);
    kv.put("remote_port", null);
    out.put("kv_transfer_params", kv);
    out.put("stream", false);
    out.remove("stream_options");
    out.put("max_tokens", 1);
    if (out.containsKey("max_completion_tokens")) {
      out.put("max_completion_tokens", 1);
    }
    return Json.write(out).getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** The decode half: the client's request plus where the prefill worker holds the KV. */
  static byte[] vllmDecodeBody(
      Map<String, Object> body, byte[] prefillAnswer, String prefillWorker) {
    Object answer;
    try {
      answer = Json.parse(new String(prefillAnswer, java.nio.charset.StandardCharsets.UTF_8));
    } catch (JsonException e) {
      throw new IllegalStateException(
          "prefill worker " + prefillWorker + " answered with invalid JSON: " + e.getMessage());
    }
    Object kv = answer instanceof Map<?, ?> m ? m.get("kv_transfer_params") : null;
    if (!(kv instanceof Map<?, ?>)) {
      throw new IllegalStateException(
          "prefill worker "
              + prefillWorker
              + " returned no kv_transfer_params (is its --kv-transfer-config set?)");
    }
    Map<String, Object> out = new LinkedHashMap<>(body);
    out.put("kv_transfer_params", kv);
    return Json.write(out).getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** The request body with SGLang's bootstrap fields. */
  static byte[] withBootstrap(Map<String, Object> body, String host, int port, long room) {
    Map<String, Object> out = new LinkedHashMap<>(body);
    out.put("bootstrap_host", host);
    out.put("bootstrap_port", port);
    out.put("bootstrap_room", room);
    return Json.write(out).getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  private void dispatchPair(
      Exchange ex, RoutePlan prefill, RoutePlan decode, byte[] body, long room) {
    prefill.worker().breaker().tryAcquire();
    log.debug(
        "route pair request_id={} prefill={} decode={} blocks={} prefill_hits={} room={}",
        ex.requestId,
        prefill.worker().info().id(),
        decode.worker().info().id(),
        prefill.decision().requestBlocks(),
        prefill.hitBlocks(),
        room);
    long sentAt = System.nanoTime();
    send(ex, prefill, body, req -> ex.prefillUpstream = req)
        .onComplete(
            ar -> {
              String id = prefill.worker().info().id().value();
              if (ar.succeeded() && ar.result().statusCode() < 500) {
                prefill.worker().breaker().onSuccess();
                rt.metrics().firstByte(id, System.nanoTime() - sentAt);
                HttpClientResponse resp = ar.result();
                // Its answer is not the client's: read it away, releasing the booking at its end
                // or when the connection breaks halfway.
                resp.endHandler(v -> prefill.booking().release());
                resp.exceptionHandler(e -> prefill.booking().release());
                resp.handler(buf -> {});
                resp.resume();
                return;
              }
              prefill.booking().release();
              if (ex.clientGone) {
                return;
              }
              prefill.worker().breaker().onFault();
              String why =
                  ar.failed() ? ar.cause().toString() : "answered " + ar.result().statusCode();
              if (ar.succeeded()) {
                drain(ar.result());
              }
              log.info("prefill failure request_id={} worker={} error={}", ex.requestId, id, why);
              // The decode worker would wait for KV that never comes: fail now, unless it has
              // already begun answering (then its own error reaches the client).
              if (!ex.responding && !ex.finished) {
                fail(ex, new RoutingFailure.UpstreamFailed("prefill worker " + id + " " + why));
                if (ex.upstream != null) {
                  ex.upstream.reset();
                }
              }
            });
    sendDecode(ex, decode, body, sentAt);
  }

  /** Sends the decode half and forwards its answer to the client. */
  private void sendDecode(Exchange ex, RoutePlan decode, byte[] body, long sentAt) {
    decode.worker().breaker().tryAcquire();
    send(ex, decode, body, req -> ex.upstream = req)
        .onComplete(
            ar -> {
              if (ex.clientGone || ex.finished) {
                if (ar.succeeded()) {
                  drain(ar.result());
                }
                return;
              }
              WorkerId id = decode.worker().info().id();
              if (ar.failed()) {
                decode.worker().breaker().onFault();
                fail(
                    ex,
                    new RoutingFailure.UpstreamFailed(
                        "decode worker " + id + " failed before responding: " + ar.cause()));
                if (ex.prefillUpstream != null) {
                  ex.prefillUpstream.reset();
                }
                return;
              }
              HttpClientResponse resp = ar.result();
              rt.metrics().firstByte(id.value(), System.nanoTime() - sentAt);
              if (resp.statusCode() >= 500) {
                decode.worker().breaker().onFault();
              } else {
                decode.worker().breaker().onSuccess();
              }
              forward(ex, decode, resp);
            });
  }

  private static void drain(HttpClientResponse resp) {
    resp.exceptionHandler(e -> {});
    resp.handler(buf -> {});
    resp.resume();
  }

  /** Sends {@code body} to {@code plan}'s worker with the client's headers. */
  private Future<HttpClientResponse> send(
      Exchange ex,
      RoutePlan plan,
      byte[] body,
      java.util.function.Consumer<HttpClientRequest> started) {
    String url = plan.worker().info().url() + ex.endpoint.path();
    RequestOptions opts =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setAbsoluteURI(url)
            .setConnectTimeout(rt.config().limits().connectTimeoutMs())
            .setIdleTimeout(rt.config().limits().firstByteTimeoutMs());
    MultiMap in = ex.ctx.request().headers();
    for (var h : in) {
      String key = h.getKey().toLowerCase(Locale.ROOT);
      if (!HOP_BY_HOP.contains(key) && !key.equals("content-length")) {
        opts.addHeader(h.getKey(), h.getValue());
      }
    }
    opts.putHeader("x-request-id", ex.requestId);
    if (plan.worker().info().dpSize() > 1) {
      opts.putHeader("X-data-parallel-rank", Integer.toString(plan.dpRank()));
    }
    return client
        .request(opts)
        .compose(
            req -> {
              started.accept(req);
              if (ex.clientGone) {
                req.reset();
              }
              return req.send(Buffer.buffer(body));
            });
  }

  private boolean canRetry(Exchange ex) {
    return ex.prefillPlan == null
        && ex.tried.size() < rt.config().limits().retries()
        && !rt.shuttingDown();
  }

  private void upstreamFailed(Exchange ex, RoutePlan plan, Throwable cause) {
    plan.booking().release();
    plan.worker().breaker().onFault();
    WorkerId id = plan.worker().info().id();
    ex.tried.add(id);
    boolean timeout =
        cause instanceof TimeoutException
            || String.valueOf(cause.getMessage()).toLowerCase(Locale.ROOT).contains("timeout");
    ex.lastUpstreamFailure =
        timeout
            ? new RoutingFailure.UpstreamTimeout("worker " + id + " did not answer in time")
            : new RoutingFailure.UpstreamFailed(
                "worker "
                    + id
                    + " failed before responding: "
                    + (cause instanceof ConnectException
                        ? "connection refused"
                        : cause.toString()));
    log.info(
        "upstream failure request_id={} worker={} error={}", ex.requestId, id, cause.toString());
    if (canRetry(ex) && !ex.clientGone) {
      rt.metrics().retry();
      attempt(ex);
    } else {
      fail(ex, ex.lastUpstreamFailure);
    }
  }

  private void forward(Exchange ex, RoutePlan plan, HttpClientResponse resp) {
    HttpServerResponse out = ex.ctx.response();
    out.setStatusCode(resp.statusCode());
    for (var h : resp.headers()) {
      if (!HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
        out.headers().add(h.getKey(), h.getValue());
      }
    }
    String length = resp.getHeader("content-length");
    if (length != null) {
      out.putHeader("content-length", length);
    } else {
      out.setChunked(true);
    }
    out.putHeader("x-request-id", ex.requestId);
    out.putHeader("x-infera-worker", plan.worker().info().id().value());
    RoutePlan cachePlan = ex.prefillPlan != null ? ex.prefillPlan : plan;
    out.putHeader("x-infera-cache-hit-blocks", Integer.toString(cachePlan.hitBlocks()));
    if (ex.prefillPlan != null) {
      out.putHeader("x-infera-prefill-worker", ex.prefillPlan.worker().info().id().value());
    }
    ex.responding = true;
    boolean sse =
        String.valueOf(resp.getHeader("content-type"))
            .toLowerCase(Locale.ROOT)
            .startsWith("text/event-stream");
    resp.pipe()
        .endOnFailure(false)
        .to(out)
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                finish(ex, Integer.toString(resp.statusCode()));
                return;
              }
              // After the first byte: report, never retry.
              log.info(
                  "stream broke request_id={} worker={} error={}",
                  ex.requestId,
                  plan.worker().info().id(),
                  ar.cause().toString());
              if (!ex.clientGone && !out.ended() && !out.closed()) {
                if (sse) {
                  out.end(
                      "data: "
                          + ErrorResponses.body(
                              new RoutingFailure.UpstreamFailed(
                                  "worker " + plan.worker().info().id() + " broke the stream"))
                          + "\n\n");
                } else {
                  out.reset();
                }
              }
              plan.worker().breaker().onFault();
              finish(ex, "upstream_broken");
            });
  }

  private void clientGone(Exchange ex) {
    if (ex.finished) {
      return;
    }
    ex.clientGone = true;
    if (ex.upstream != null) {
      ex.upstream.reset();
    }
    if (ex.prefillUpstream != null) {
      ex.prefillUpstream.reset();
    }
    finish(ex, "client_closed");
  }

  private void finish(Exchange ex, String status) {
    if (ex.finished) {
      return;
    }
    ex.finished = true;
    if (ex.plan != null) {
      ex.plan.booking().release();
    }
    if (ex.prefillPlan != null && ex.clientGone) {
      ex.prefillPlan.booking().release(); // otherwise it ends with the prefill response
    }
    String worker = ex.plan == null ? null : ex.plan.worker().info().id().value();
    rt.metrics().request(status, worker, System.nanoTime() - ex.start);
    log.debug("done request_id={} status={} worker={}", ex.requestId, status, worker);
  }

  private void fail(Exchange ex, RoutingFailure f) {
    ErrorResponses.send(ex.ctx.response(), f, ex.requestId);
    finish(ex, Integer.toString(ErrorResponses.status(f)));
  }

  private void fail(RoutingContext ctx, String requestId, RoutingFailure f) {
    ErrorResponses.send(ctx.response(), f, requestId);
    rt.metrics().request(Integer.toString(ErrorResponses.status(f)), null, 0);
  }
}
