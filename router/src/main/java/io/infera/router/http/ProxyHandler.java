package io.infera.router.http;

import io.infera.router.routing.AnalysisBudget;
import io.infera.router.routing.RequestAnalyzer;
import io.infera.router.routing.RequestAnalyzer.Endpoint;
import io.infera.router.routing.RequestRouter;
import io.infera.router.routing.RoutePlan;
import io.infera.router.routing.RoutingFailure;
import io.infera.router.routing.SessionAffinity;
import io.infera.router.routing.SessionKey;
import io.infera.router.runtime.RouterRuntime;
import io.vertx.core.Future;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.ext.web.RoutingContext;
import java.net.ConnectException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxied endpoints ({@link Endpoint}), the orchestration: analyse (off the event loop), pick
 * and book, send, stream the answer back ({@link Upstream}). A failure before the first byte is
 * retried on another worker; a disaggregated pick goes to {@link DisaggregatedDispatch}. Each try
 * is an {@link Attempt} that every ending closes.
 */
final class ProxyHandler {

  private static final Logger log = LoggerFactory.getLogger(ProxyHandler.class);

  private final RouterRuntime rt;
  private final WorkerExecutor pool;
  private final ProxyMetrics metrics;
  private final Upstream upstream;
  private final EngineTokenizer engineTokenizer;
  private final DisaggregatedDispatch disaggregated;
  private final ParityTokens parityTokens;

  ProxyHandler(
      RouterRuntime rt,
      WorkerExecutor pool,
      ProxyMetrics metrics,
      Upstream upstream,
      EngineTokenizer engineTokenizer) {
    this.rt = rt;
    this.pool = pool;
    this.metrics = metrics;
    this.upstream = upstream;
    this.engineTokenizer = engineTokenizer;
    this.disaggregated =
        new DisaggregatedDispatch(
            upstream, pool, metrics, rt.config().decodeDemand().prefillGuardRelease());
    this.parityTokens = new ParityTokens(rt.renderParity(), rt.fleet(), engineTokenizer, true);
  }

  void handle(RoutingContext ctx, Endpoint endpoint) {
    String requestId = RouterServer.requestId(ctx);
    if (rt.shuttingDown()) {
      refuse(ctx, requestId, new RoutingFailure.ShuttingDown("the router is shutting down"));
      return;
    }
    String tokenizerProblem = rt.tokenizerProblem();
    if (tokenizerProblem != null) {
      refuse(
          ctx,
          requestId,
          new RoutingFailure.TokenizerUnavailable("tokenizer: " + tokenizerProblem));
      return;
    }
    Buffer body = ctx.body().buffer();
    if (body == null || body.length() == 0) {
      refuse(ctx, requestId, new RoutingFailure.BadRequest("request body is empty", null));
      return;
    }
    Exchange ex = new Exchange(ctx, requestId, endpoint, body.getBytes(), metrics);
    ctx.response().closeHandler(v -> ex.clientGone());
    // The global analysis budget runs the analysis (429 when full) and drops it, untokenized,
    // when the client leaves first.
    Future.fromCompletionStage(
            rt.analysisBudget()
                .submit(
                    ex.body.length,
                    () -> ex.clientGone,
                    () -> rt.analyzer().analyze(ex.body, endpoint, () -> ex.clientGone),
                    null),
            ctx.vertx().getOrCreateContext())
        .onComplete(
            ar -> {
              if (ex.clientGone) {
                return;
              }
              if (ar.failed() && ar.cause() instanceof AnalysisBudget.Refused refused) {
                ex.fail(refused.failure());
                return;
              }
              if (ar.failed()) {
                log.error("analyze failed request_id={}", requestId, ar.cause());
                ex.fail(new RoutingFailure.Internal("internal error analysing the request"));
                return;
              }
              RequestAnalyzer.Result r = ar.result();
              if (r instanceof RequestAnalyzer.Result.Failed f) {
                ex.fail(f.failure());
                return;
              }
              engineTokenizer
                  .withEngineTokens(((RequestAnalyzer.Result.Ok) r).analyzed(), requestId)
                  .compose(
                      a -> {
                        ex.analyzed = a;
                        ex.session = sessionKey(rt, ex.ctx, ex.analyzed, true);
                        return parityTokens.own(a, requestId);
                      })
                  .onComplete(
                      own -> {
                        ex.ownHashes = own.succeeded() ? own.result() : java.util.Map.of();
                        if (!ex.clientGone) {
                          attempt(ex);
                        }
                      });
            });
  }

  private void attempt(Exchange ex) {
    RequestRouter.Pick pick =
        rt.router()
            .pick(
                ex.analyzed.hashes(),
                ex.ownHashes,
                ex.analyzed.input(),
                ex.analyzed.media(),
                ex.tried,
                0,
                ex.session);
    if (pick instanceof RequestRouter.Pick.Failed f) {
      ex.fail(ex.lastUpstreamFailure != null ? ex.lastUpstreamFailure : f.failure());
      return;
    }
    RoutePlan plan;
    if (pick instanceof RequestRouter.Pick.Pair pair) {
      if (!ex.endpoint.byLoad()) {
        disaggregated.start(ex, pair);
        return;
      }
      // Embeddings and (de)tokenization are no generation: the prefill worker answers them
      // alone, and the decode half of the pair is given back at once.
      new Attempt(pair.decode()).close();
      plan = pair.prefill();
    } else {
      plan = ((RequestRouter.Pick.Ok) pick).plan();
    }
    Attempt attempt = new Attempt(plan);
    if (ex.analyzed.media().multimodal()) {
      attempt.notTextOnly(); // image affinity, not text overlap, chose it: the tuner skips it
    }
    ex.main = attempt;
    log.debug(
        "route request_id={} worker={} blocks={} hits={} attempt={} session={}",
        ex.requestId,
        attempt.worker(),
        attempt.plan().decision().requestBlocks(),
        attempt.plan().hitBlocks(),
        ex.tried.size() + 1,
        attempt.plan().session().label());
    upstream
        .send(ex, attempt, ex.body, req -> ex.upstream = req)
        .onComplete(
            ar -> {
              if (ex.clientGone) {
                attempt.close();
                return;
              }
              if (ar.failed()) {
                upstreamFailed(ex, attempt, ar.cause());
                return;
              }
              HttpClientResponse resp = ar.result();
              attempt.answered(resp.statusCode());
              if (resp.statusCode() >= 500 && canRetry(ex)) {
                log.info(
                    "retry request_id={} worker={} status={}",
                    ex.requestId,
                    attempt.worker(),
                    resp.statusCode());
                Upstream.drain(resp);
                attempt.close();
                ex.tried.add(attempt.plan().worker().info().id());
                ex.lastUpstreamFailure =
                    new RoutingFailure.UpstreamFailed(
                        "worker " + attempt.worker() + " answered " + resp.statusCode());
                metrics.retry();
                attempt(ex);
                return;
              }
              upstream.forward(ex, attempt, resp);
            });
  }

  private boolean canRetry(Exchange ex) {
    return ex.prefill == null
        && ex.tried.size() < rt.config().limits().retries()
        && !rt.shuttingDown();
  }

  private void upstreamFailed(Exchange ex, Attempt attempt, Throwable cause) {
    attempt.close();
    attempt.failed();
    String id = attempt.worker();
    ex.tried.add(attempt.plan().worker().info().id());
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
      metrics.retry();
      attempt(ex);
    } else {
      ex.fail(ex.lastUpstreamFailure);
    }
  }

  /**
   * The request's session key (docs/routing.md, "Session affinity"): the configured header, else
   * the body's {@code prompt_cache_key}; null when affinity is off or the request names none.
   */
  static SessionKey sessionKey(
      RouterRuntime rt, RoutingContext ctx, RequestAnalyzer.Analyzed a, boolean count) {
    SessionAffinity affinity = rt.router().sessionAffinity();
    if (!affinity.config().enabled()) {
      return null;
    }
    String header = affinity.config().header();
    return affinity.key(header == null ? null : ctx.request().getHeader(header), a.body(), count);
  }

  /** A request refused before it has an exchange (nothing booked). */
  private void refuse(RoutingContext ctx, String requestId, RoutingFailure f) {
    ErrorResponses.send(ctx, f, requestId);
    metrics.request(Integer.toString(ErrorResponses.status(f)), null, 0);
  }
}
