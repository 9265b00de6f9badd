package io.infera.sim.engine;

import io.infera.router.json.Json;
import io.infera.router.kv.BlockHasher;
import io.infera.sim.engine.OpenAiFormat.Meta;
import io.infera.sim.engine.RequestParser.Endpoint;
import io.infera.sim.engine.RequestParser.Parsed;
import io.infera.sim.sched.EngineEvent;
import io.infera.sim.sched.SimRequest;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulated engine's HTTP API (vLLM's OpenAI server): generation endpoints streamed or whole
 * (chat, completions, Anthropic Messages, OpenAI Responses), {@code /tokenize}, {@code /v1/models},
 * {@code /health}, {@code /metrics}, and {@code /sim/cache} (the cache's router hashes, the truth a
 * router's index is compared against).
 *
 * <p>Threading: handlers run on the server's event loop and never block it. Parsing and
 * tokenization run on a bounded worker pool; engine work is queued to the rank's {@link
 * EngineLoop}; results come back through {@link Exchange#events}, which hops onto the request's
 * event-loop context before touching the response.
 */
final class EngineHttp {

  /** The request header that picks a data-parallel rank (as vLLM's). */
  static final String DP_RANK_HEADER = "X-data-parallel-rank";

  private static final Logger log = LoggerFactory.getLogger(EngineHttp.class);
  private static final long MAX_BODY_BYTES = 64L * 1024 * 1024;

  private final EngineOptions options;
  private final RequestParser parser;
  private final AnswerVocabulary vocabulary;
  private final List<EngineLoop> loops;
  private final WorkerExecutor workers;
  private final long startedAt = System.currentTimeMillis() / 1000;
  private final AtomicLong serial = new AtomicLong();
  private final AtomicLong roundRobin = new AtomicLong();

  EngineHttp(
      EngineOptions options,
      RequestParser parser,
      AnswerVocabulary vocabulary,
      List<EngineLoop> loops,
      WorkerExecutor workers) {
    this.options = options;
    this.parser = parser;
    this.vocabulary = vocabulary;
    this.loops = List.copyOf(loops);
    this.workers = workers;
  }

  Router router(Vertx vertx) {
    Router r = Router.router(vertx);
    r.get("/health").handler(rc -> rc.response().setStatusCode(200).end());
    r.get("/ping").handler(rc -> rc.response().setStatusCode(200).end());
    r.get("/version").handler(rc -> json(rc.response(), 200, "{\"version\":\"infera-sim\"}"));
    r.get("/v1/models")
        .handler(
            rc ->
                json(
                    rc.response(),
                    200,
                    OpenAiFormat.models(options.model(), startedAt, parser.maxModelLen())));
    r.get("/metrics").handler(this::metrics);
    r.get("/sim/cache").handler(this::cache);
    BodyHandler body = BodyHandler.create(false).setBodyLimit(MAX_BODY_BYTES);
    r.post("/v1/chat/completions").handler(body).handler(rc -> generate(rc, Endpoint.CHAT));
    r.post("/v1/completions").handler(body).handler(rc -> generate(rc, Endpoint.COMPLETIONS));
    r.post("/v1/messages").handler(body).handler(rc -> generate(rc, Endpoint.MESSAGES));
    r.post("/v1/responses").handler(body).handler(rc -> generate(rc, Endpoint.RESPONSES));
    r.post("/tokenize").handler(body).handler(this::tokenize);
    return r;
  }

  // ---------------------------------------------------------------- generation

  private void generate(RoutingContext rc, Endpoint endpoint) {
    String requestId = requestId(rc);
    EngineLoop loop;
    try {
      loop = pickRank(rc);
    } catch (ApiError e) {
      error(rc.response(), e, endpoint);
      return;
    }
    byte[] body = rc.body().buffer() == null ? new byte[0] : rc.body().buffer().getBytes();
    Context ctx = Vertx.currentContext();
    workers
        .executeBlocking(() -> parser.parse(endpoint, body), false)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                error(rc.response(), ar.cause(), endpoint);
                return;
              }
              Parsed p = ar.result();
              if (p.batchPrompts() > 1) {
                log.debug(
                    "batch prompt, serving the first request_id={} prompts={}",
                    requestId,
                    p.batchPrompts());
              }
              start(rc, ctx, loop, requestId, p);
            });
  }

  private void start(RoutingContext rc, Context ctx, EngineLoop loop, String requestId, Parsed p) {
    HttpServerResponse resp = rc.response();
    if (resp.closed()) {
      return; // the client left while the prompt was tokenized
    }
    String prefix =
        switch (p.endpoint()) {
          case CHAT -> "chatcmpl-";
          case COMPLETIONS -> "cmpl-";
          case MESSAGES -> "msg_";
          case RESPONSES -> "resp_";
        };
    Meta meta =
        new Meta(p.endpoint(), prefix + requestId, System.currentTimeMillis() / 1000, p.model());
    String coreId = meta.id() + "#" + serial.incrementAndGet();
    AnswerVocabulary.Answer answer = vocabulary.answer(requestId, p.maxTokens());
    Exchange ex =
        new Exchange(ctx, resp, loop, coreId, meta, p, answer, options.promptTokensDetails());
    resp.closeHandler(v -> ex.clientGone());
    if (p.stream()) {
      resp.setChunked(true)
          .putHeader("content-type", "text/event-stream; charset=utf-8")
          .putHeader("cache-control", "no-cache");
      resp.writeHead();
    }
    // The engine generates the answer's own ids, so a client that sends the answer text back in
    // its next turn re-encodes it to the cached tokens (as with a real engine).
    loop.submit(
        new SimRequest(coreId, p.promptIds(), p.maxTokens(), null, loop.nowMs(), answer.ids()), ex);
  }

  /**
   * One generation request in flight: turns the engine's token events into the answer's text pieces
   * (token {@code i} is the answer's word {@code i}) and writes them out.
   */
  private static final class Exchange implements RequestSink {
    private final Context ctx;
    private final HttpServerResponse resp;
    private final EngineLoop loop;
    private final String coreId;
    private final Meta meta;
    private final Parsed parsed;
    private final AnswerVocabulary.Answer answer;
    private final boolean promptTokensDetails;
    private final ResponsesFormat responses;
    // Event-loop state.
    private int emitted;
    private boolean done;

    Exchange(
        Context ctx,
        HttpServerResponse resp,
        EngineLoop loop,
        String coreId,
        Meta meta,
        Parsed parsed,
        AnswerVocabulary.Answer answer,
        boolean promptTokensDetails) {
      this.ctx = ctx;
      this.resp = resp;
      this.loop = loop;
      this.coreId = coreId;
      this.meta = meta;
      this.parsed = parsed;
      this.promptTokensDetails = promptTokensDetails;
      this.answer = answer;
      this.responses =
          parsed.endpoint() == Endpoint.RESPONSES
              ? new ResponsesFormat(meta, parsed.maxTokens())
              : null;
    }

    @Override
    public void events(List<EngineEvent> events) {
      ctx.runOnContext(v -> onEvents(events));
    }

    @Override
    public void rejected(Rejection reason, String message) {
      ctx.runOnContext(
          v -> {
            if (done) {
              return;
            }
            done = true;
            Endpoint endpoint = parsed.endpoint();
            if (parsed.stream() && endpoint == Endpoint.MESSAGES) {
              resp.end(AnthropicFormat.error("overloaded_error", message));
            } else if (parsed.stream() && endpoint == Endpoint.RESPONSES) {
              resp.end(responses.end(answer.text(emitted), "abort", null));
            } else if (parsed.stream()) {
              resp.end(OpenAiFormat.chunk(meta, null, emitted == 0, "abort") + OpenAiFormat.DONE);
            } else if (reason == Rejection.DOES_NOT_FIT) {
              error(resp, ApiError.badRequest(message, null), endpoint);
            } else {
              error(resp, new ApiError(503, "ServiceUnavailableError", message, null), endpoint);
            }
          });
    }

    /** Event loop: the connection closed. */
    void clientGone() {
      if (!done) {
        done = true;
        loop.cancel(coreId);
      }
    }

    private void onEvents(List<EngineEvent> events) {
      if (resp.closed()) {
        clientGone();
      }
      if (done) {
        return;
      }
      int upTo = emitted;
      EngineEvent.Finished finished = null;
      for (EngineEvent e : events) {
        if (e instanceof EngineEvent.FirstToken) {
          upTo = Math.max(upTo, 1);
        } else if (e instanceof EngineEvent.Token t) {
          upTo = Math.max(upTo, t.index() + 1);
        } else if (e instanceof EngineEvent.Finished f) {
          upTo = Math.max(upTo, f.completionTokens());
          finished = f;
        }
      }
      upTo = Math.min(upTo, answer.length());
      if (finished != null) {
        log.debug(
            "request finished id={} rank={} prompt_tokens={} cached_tokens={}"
                + " completion_tokens={} finish_reason={}",
            meta.id(),
            loop.rank(),
            finished.promptTokens(),
            finished.cachedTokens(),
            finished.completionTokens(),
            finished.finishReason());
      }
      if (parsed.stream()) {
        stream(upTo, finished);
      } else {
        emitted = upTo;
        if (finished != null) {
          done = true;
          json(resp, 200, whole(finished));
        }
      }
    }

    /** The whole answer in the endpoint's format. */
    private String whole(EngineEvent.Finished f) {
      String text = answer.text(emitted);
      int prompt = f.promptTokens();
      int cached = f.cachedTokens();
      return switch (parsed.endpoint()) {
        case CHAT, COMPLETIONS ->
            OpenAiFormat.response(
                meta,
                text,
                f.finishReason(),
                OpenAiFormat.usage(prompt, emitted, cached, promptTokensDetails));
        case MESSAGES ->
            AnthropicFormat.message(
                meta,
                text,
                f.finishReason(),
                AnthropicFormat.usage(prompt, emitted, cached, promptTokensDetails));
        case RESPONSES ->
            responses.whole(
                text,
                f.finishReason(),
                ResponsesFormat.usage(prompt, emitted, cached, promptTokensDetails));
      };
    }

    /** Streams a Messages or Responses answer: its opening with the first token, then deltas. */
    private void streamEvents(int upTo, EngineEvent.Finished finished) {
      boolean anthropic = parsed.endpoint() == Endpoint.MESSAGES;
      StringBuilder sb = new StringBuilder();
      if (emitted == 0 && (upTo > 0 || finished != null)) {
        sb.append(
            anthropic ? AnthropicFormat.start(meta, parsed.promptIds().length) : responses.start());
      }
      while (emitted < upTo) {
        String piece = answer.pieces()[emitted];
        sb.append(anthropic ? AnthropicFormat.delta(piece) : responses.delta(piece));
        emitted++;
      }
      if (finished == null) {
        if (sb.length() > 0) {
          resp.write(sb.toString());
        }
        return;
      }
      done = true;
      int prompt = finished.promptTokens();
      int cached = finished.cachedTokens();
      if (anthropic) {
        sb.append(
            AnthropicFormat.end(
                finished.finishReason(),
                AnthropicFormat.usage(prompt, emitted, cached, promptTokensDetails)));
      } else {
        sb.append(
            responses.end(
                answer.text(emitted),
                finished.finishReason(),
                ResponsesFormat.usage(prompt, emitted, cached, promptTokensDetails)));
      }
      resp.end(sb.toString());
    }

    private void stream(int upTo, EngineEvent.Finished finished) {
      if (parsed.endpoint() == Endpoint.MESSAGES || parsed.endpoint() == Endpoint.RESPONSES) {
        streamEvents(upTo, finished);
        return;
      }
      StringBuilder sb = new StringBuilder();
      String finishReason = finished == null ? null : finished.finishReason();
      boolean finishSent = false;
      while (emitted < upTo) {
        boolean last = emitted == upTo - 1;
        sb.append(
            OpenAiFormat.chunk(
                meta, answer.pieces()[emitted], emitted == 0, last ? finishReason : null));
        finishSent = last && finished != null;
        emitted++;
      }
      if (finished == null) {
        if (sb.length() > 0) {
          resp.write(sb.toString());
        }
        return;
      }
      done = true;
      if (!finishSent) {
        sb.append(OpenAiFormat.chunk(meta, "", emitted == 0, finishReason));
      }
      if (parsed.includeUsage()) {
        sb.append(
            OpenAiFormat.usageChunk(
                meta,
                OpenAiFormat.usage(
                    finished.promptTokens(),
                    emitted,
                    finished.cachedTokens(),
                    promptTokensDetails)));
      }
      sb.append(OpenAiFormat.DONE);
      resp.end(sb.toString());
    }
  }

  // ---------------------------------------------------------------- other endpoints

  private void tokenize(RoutingContext rc) {
    byte[] body = rc.body().buffer() == null ? new byte[0] : rc.body().buffer().getBytes();
    workers
        .executeBlocking(() -> parser.tokenize(body), false)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                error(rc.response(), ar.cause());
              } else {
                json(rc.response(), 200, OpenAiFormat.tokenized(ar.result(), parser.maxModelLen()));
              }
            });
  }

  private void metrics(RoutingContext rc) {
    List<EngineMetrics.Rank> ranks = new ArrayList<>(loops.size());
    for (EngineLoop l : loops) {
      ranks.add(new EngineMetrics.Rank(l.rank(), l.stats(), l.kvBatches()));
    }
    rc.response()
        .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8")
        .end(EngineMetrics.render(options.model(), options.flavor(), ranks));
  }

  /** {@code GET /sim/cache[?dp_rank=R]}: router hashes of every cached block (ranks merged). */
  private void cache(RoutingContext rc) {
    List<EngineLoop> selected;
    Integer rank = null;
    List<String> param = rc.queryParam("dp_rank");
    if (param.isEmpty()) {
      selected = loops;
    } else {
      try {
        rank = Integer.parseInt(param.get(0));
      } catch (NumberFormatException e) {
        rank = -1;
      }
      if (rank < 0 || rank >= loops.size()) {
        error(
            rc.response(),
            ApiError.badRequest("dp_rank must be 0.." + (loops.size() - 1), "dp_rank"));
        return;
      }
      selected = List.of(loops.get(rank));
    }
    List<CompletableFuture<long[]>> parts = new ArrayList<>();
    for (EngineLoop l : selected) {
      parts.add(l.call(core -> core.blocks().cachedRouterHashes()));
    }
    Integer chosen = rank;
    CompletableFuture<Void> all = CompletableFuture.allOf(parts.toArray(new CompletableFuture[0]));
    Future.fromCompletionStage(all, Vertx.currentContext())
        .onComplete(
            ar -> {
              if (ar.failed()) {
                error(rc.response(), ar.cause());
                return;
              }
              long[] merged = merge(parts);
              List<String> hex = new ArrayList<>(merged.length);
              for (long h : merged) {
                hex.add(BlockHasher.hex(h));
              }
              Map<String, Object> out = new LinkedHashMap<>();
              out.put("block_size", options.blockSize());
              if (chosen != null) {
                out.put("dp_rank", chosen);
              }
              out.put("blocks", merged.length);
              out.put("router_hashes", hex);
              json(rc.response(), 200, Json.write(out));
            });
  }

  /** Distinct hashes of all parts, sorted as unsigned values. */
  private static long[] merge(List<CompletableFuture<long[]>> parts) {
    long[] all = parts.stream().flatMapToLong(f -> Arrays.stream(f.join())).toArray();
    for (int i = 0; i < all.length; i++) {
      all[i] ^= Long.MIN_VALUE;
    }
    all = Arrays.stream(all).sorted().distinct().toArray();
    for (int i = 0; i < all.length; i++) {
      all[i] ^= Long.MIN_VALUE;
    }
    return all;
  }

  // ---------------------------------------------------------------- helpers

  private EngineLoop pickRank(RoutingContext rc) throws ApiError {
    String h = rc.request().getHeader(DP_RANK_HEADER);
    if (h == null || h.isBlank()) {
      return loops.get((int) Math.floorMod(roundRobin.getAndIncrement(), (long) loops.size()));
    }
    try {
      int r = Integer.parseInt(h.trim());
      if (r >= 0 && r < loops.size()) {
        return loops.get(r);
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw ApiError.badRequest(
        DP_RANK_HEADER + " must be 0.." + (loops.size() - 1) + ", got " + h, null);
  }

  private static String requestId(RoutingContext rc) {
    String id = rc.request().getHeader("x-request-id");
    if (id == null || id.isBlank()) {
      id = UUID.randomUUID().toString().replace("-", "");
    }
    rc.response().putHeader("x-request-id", id);
    return id;
  }

  private static void json(HttpServerResponse resp, int status, String body) {
    if (resp.closed() || resp.ended()) {
      return;
    }
    resp.setStatusCode(status).putHeader("content-type", "application/json").end(body);
  }

  private static void error(HttpServerResponse resp, Throwable t) {
    error(resp, t, null);
  }

  /** An error in the endpoint's shape: Anthropic's for {@code /v1/messages}. */
  private static void error(HttpServerResponse resp, Throwable t, Endpoint endpoint) {
    ApiError e;
    if (t instanceof ApiError a) {
      e = a;
    } else {
      log.warn("request failed error={}", t.toString(), t);
      e = ApiError.internal(t.getMessage() == null ? t.toString() : t.getMessage());
    }
    if (resp.headWritten()) {
      if (!resp.ended() && !resp.closed()) {
        resp.end();
      }
      return;
    }
    json(
        resp, e.status(), Json.write(endpoint == Endpoint.MESSAGES ? e.anthropicBody() : e.body()));
  }
}
