package io.infera.router.http;

import io.infera.router.config.DecodeDemandConfig;
import io.infera.router.routing.RequestAnalyzer;
import io.infera.router.routing.RequestRouter;
import io.infera.router.routing.RoutePlan;
import io.infera.router.routing.RoutingFailure;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.HttpClientResponse;
import java.net.URI;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A request on a disaggregated fleet: a prefill worker chosen for its cache and a decode worker,
 * joined by the engine's KV hand-over (docs/routing.md, "Prefill/decode hand-over"). SGLang: the
 * same request with the prefill server's bootstrap address and a fresh room goes to both at once;
 * the decode worker pulls the KV and answers the client. vLLM and ATOM: a one-token prefill first,
 * then its {@code kv_transfer_params} go with the request to the decode worker (none when the
 * prefill answer has none: decode then computes the prompt itself; ATOM's get the prefill worker's
 * layout added, docs/atom.md). The client always gets one answer; a failing half fails the request
 * instead of leaving the other waiting. Bodies are built on the worker pool (large JSON is not
 * event-loop work).
 */
final class DisaggregatedDispatch {

  private static final Logger log = LoggerFactory.getLogger(DisaggregatedDispatch.class);

  /** Largest prefill answer read for its {@code kv_transfer_params} (a one-token completion). */
  static final int MAX_PREFILL_ANSWER_BYTES = 1 << 20;

  private final Upstream upstream;
  private final WorkerExecutor pool;
  private final ProxyMetrics metrics;
  private final DecodeDemandConfig.GuardRelease guardRelease;

  /** Prefill workers already warned about for answering without {@code kv_transfer_params}. */
  private final OncePerWorker warnedNoKv = new OncePerWorker();

  /**
   * @param guardRelease when the prefill half's booking is released ({@code
   *     policy.prefillGuardRelease})
   */
  DisaggregatedDispatch(
      Upstream upstream,
      WorkerExecutor pool,
      ProxyMetrics metrics,
      DecodeDemandConfig.GuardRelease guardRelease) {
    this.upstream = upstream;
    this.pool = pool;
    this.metrics = metrics;
    this.guardRelease = guardRelease;
  }

  void start(Exchange ex, RequestRouter.Pick.Pair pair) {
    Attempt prefill = new Attempt(pair.prefill());
    Attempt decode = new Attempt(pair.decode());
    if (ex.analyzed.media().multimodal()) {
      // the overlap-weight tuner learns from text-only requests alone
      prefill.notTextOnly();
      decode.notTextOnly();
    }
    ex.main = decode;
    ex.prefill = prefill;
    ex.prefillHeldUntilEnd = guardRelease == DecodeDemandConfig.GuardRelease.DECODE;
    if (pair.decode().demand() != null && log.isDebugEnabled()) {
      // Targets and token counts only: never the prompt or a session key.
      log.debug("decode demand request_id={} {}", ex.requestId, pair.decode().demand().describe());
    }
    String engine = pair.prefill().worker().info().engine();
    String decodeEngine = pair.decode().worker().info().engine();
    if (!engine.equals(decodeEngine) || !KNOWN.contains(engine)) {
      ex.fail(
          new RoutingFailure.NoWorker(
              "prefill/decode pools of engine "
                  + engine
                  + " and "
                  + decodeEngine
                  + " have no KV hand-over this router knows (SGLang's bootstrap, vLLM's or"
                  + " ATOM's kv_transfer_params); use mixed pools"));
      return;
    }
    String unsupported = handOverGap(ex.endpoint, engine);
    if (unsupported != null) {
      ex.fail(new RoutingFailure.NoWorker(unsupported));
      return;
    }
    switch (engine) {
      case "vllm" -> kvTransferParams(ex, prefill, decode, false);
      case "atom" -> kvTransferParams(ex, prefill, decode, true);
      default -> sglang(ex, prefill, decode);
    }
  }

  /**
   * Why {@code endpoint} has no hand-over on {@code engine} pools, or null when it has one. vLLM's
   * Messages front end takes and returns {@code kv_transfer_params} like its chat endpoint; its
   * Responses front end and SGLang's Messages front end pass neither those nor SGLang's bootstrap
   * fields on to the generation.
   */
  static String handOverGap(RequestAnalyzer.Endpoint endpoint, String engine) {
    return switch (endpoint) {
      case CHAT, COMPLETIONS -> null;
      case MESSAGES ->
          engine.equals("vllm")
              ? null
              : "prefill/decode pools of engine "
                  + engine
                  + " have no KV hand-over for "
                  + endpoint.path()
                  + " (its Messages front end drops the bootstrap fields); use mixed pools or"
                  + " /v1/chat/completions";
      case RESPONSES ->
          "prefill/decode pools have no KV hand-over for "
              + endpoint.path()
              + " (the engine's Responses front end takes no kv_transfer_params); use mixed pools"
              + " or /v1/chat/completions";
      case EMBEDDINGS, TOKENIZE, DETOKENIZE -> null;
    };
  }

  /** Engines with a hand-over: the same engine on both sides. */
  private static final java.util.Set<String> KNOWN = java.util.Set.of("vllm", "sglang", "atom");

  private void sglang(Exchange ex, Attempt prefill, Attempt decode) {
    String host = URI.create(prefill.plan().worker().info().url()).getHost();
    long room = ThreadLocalRandom.current().nextLong(Long.MAX_VALUE);
    pool.executeBlocking(
            () ->
                HandOverBodies.sglangBootstrap(
                    ex.analyzed.body(), host, HandOverBodies.SGLANG_BOOTSTRAP_PORT, room),
            false)
        .onComplete(
            ar -> {
              if (ex.clientGone) {
                return;
              }
              if (ar.failed()) {
                ex.fail(new RoutingFailure.Internal("internal error preparing the request"));
                return;
              }
              sglangBoth(ex, prefill, decode, ar.result(), room);
            });
  }

  private void sglangBoth(Exchange ex, Attempt prefill, Attempt decode, byte[] body, long room) {
    RoutePlan p = prefill.plan();
    log.debug(
        "route pair request_id={} prefill={} decode={} blocks={} prefill_hits={} room={}"
            + " session={} decode_session={}",
        ex.requestId,
        prefill.worker(),
        decode.worker(),
        p.decision().requestBlocks(),
        p.hitBlocks(),
        room,
        p.session().label(),
        decode.plan().session().label());
    upstream
        .send(ex, prefill, body, req -> ex.prefillUpstream = req)
        .onComplete(
            ar -> {
              if (ar.succeeded() && ar.result().statusCode() < 500) {
                prefill.answered(ar.result().statusCode());
                prefill.firstToken(); // the answer's head: its prompt is computed
                HttpClientResponse resp = ar.result();
                // Its answer is not the client's: read it away, closing the attempt at its end
                // or when the connection breaks halfway.
                // SGLang's prefill answer carries the cached tokens under PD: tap it too.
                UsageTap tap = upstream.usage().tap(prefill, resp);
                resp.endHandler(
                    v -> {
                      prefillCompleted(ex, prefill);
                      if (tap != null) {
                        upstream.usage().report(prefill.plan(), tap);
                      }
                    });
                resp.exceptionHandler(e -> prefill.close());
                resp.handler(tap == null ? buf -> {} : tap::chunk);
                resp.resume();
                return;
              }
              prefill.close();
              if (ex.clientGone) {
                return;
              }
              prefill.failed();
              String why =
                  ar.failed() ? ar.cause().toString() : "answered " + ar.result().statusCode();
              if (ar.succeeded()) {
                Upstream.drain(ar.result());
              }
              log.info(
                  "prefill failure request_id={} worker={} error={}",
                  ex.requestId,
                  prefill.worker(),
                  why);
              // The decode worker would wait for KV that never comes: fail now, unless it has
              // already begun answering (then its own error reaches the client).
              if (!ex.responding && !ex.finished) {
                ex.fail(
                    new RoutingFailure.UpstreamFailed(
                        "prefill worker " + prefill.worker() + " " + why));
                if (ex.upstream != null) {
                  ex.upstream.reset();
                }
              }
            });
    sendDecode(ex, decode, body);
  }

  /**
   * vLLM's and ATOM's hand-over: a one-token prefill, then its {@code kv_transfer_params} (for ATOM
   * with the prefill worker's layout added) go with the request to the decode worker.
   */
  private void kvTransferParams(Exchange ex, Attempt prefill, Attempt decode, boolean atom) {
    String pid = prefill.worker();
    int prefillRank = prefill.plan().dpRank();
    int prefillRanks = prefill.plan().worker().info().dpSize();
    pool.executeBlocking(
            () ->
                atom
                    ? HandOverBodies.atomPrefill(ex.analyzed.body())
                    : HandOverBodies.vllmPrefill(ex.analyzed.body()),
            false)
        .compose(body -> upstream.send(ex, prefill, body, req -> ex.prefillUpstream = req))
        .onComplete(
            ar -> {
              if (ex.clientGone) {
                prefill.close();
                if (ar.succeeded()) {
                  Upstream.drain(ar.result());
                }
                return;
              }
              if (ar.failed()) {
                prefill.close();
                prefill.failed();
                ex.fail(
                    new RoutingFailure.UpstreamFailed(
                        "prefill worker " + pid + " failed before responding: " + ar.cause()));
                return;
              }
              HttpClientResponse resp = ar.result();
              prefill.answered(resp.statusCode());
              if (resp.statusCode() >= 400) {
                // The engine's own error (e.g. 400 for a bad request) is the client's answer.
                decode.close();
                ex.main = prefill;
                ex.prefill = null;
                upstream.forward(ex, prefill, resp);
                return;
              }
              prefill.firstToken(); // the one-token answer's head: its prompt is computed
              Upstream.readAtMost(resp, MAX_PREFILL_ANSWER_BYTES)
                  .andThen(
                      b -> {
                        if (b.succeeded()) {
                          prefillCompleted(ex, prefill);
                        } else {
                          prefill.close();
                        }
                      })
                  .andThen(
                      b -> {
                        if (b.succeeded()) {
                          upstream
                              .usage()
                              .reportWhole(
                                  prefill.plan(),
                                  resp.statusCode(),
                                  resp.getHeader("content-type"),
                                  b.result());
                        }
                      })
                  .compose(
                      buf ->
                          pool.executeBlocking(
                              () ->
                                  atom
                                      ? HandOverBodies.atomDecode(
                                          ex.analyzed.body(),
                                          buf.getBytes(),
                                          pid,
                                          prefillRank,
                                          prefillRanks)
                                      : HandOverBodies.vllmDecode(
                                          ex.analyzed.body(), buf.getBytes(), pid),
                              false))
                  .onComplete(
                      d -> {
                        if (ex.clientGone || ex.finished) {
                          return;
                        }
                        if (d.failed()) {
                          ex.fail(new RoutingFailure.UpstreamFailed(prefillError(pid, d.cause())));
                          return;
                        }
                        HandOverBodies.WithoutKv without = d.result().withoutKv();
                        if (without != null) {
                          withoutKv(ex, pid, without);
                        }
                        sendDecode(ex, decode, d.result().body());
                      });
            });
  }

  /**
   * The prefill answer completed: with {@code prefillGuardRelease: completion} its booking goes
   * now; with {@code decode} it stays until the request ends ({@link Exchange#finish} releases it,
   * at once if the request already has).
   */
  private static void prefillCompleted(Exchange ex, Attempt prefill) {
    if (!ex.prefillHeldUntilEnd || ex.finished) {
      prefill.close();
    }
  }

  /** The 502 message for a prefill answer that could not be read or used. */
  private static String prefillError(String pid, Throwable cause) {
    if (cause instanceof IllegalStateException) {
      return cause.getMessage(); // HandOverBodies names the worker
    }
    if (cause instanceof Upstream.TooLong) {
      return "prefill worker " + pid + " " + cause.getMessage();
    }
    return "prefill worker " + pid + " broke its answer: " + cause;
  }

  /**
   * Counts a decode half without KV. {@code absent} usually means a prefill pool without a KV
   * connector: warned once per worker; the others are the engine's normal outcomes.
   */
  private void withoutKv(Exchange ex, String pid, HandOverBodies.WithoutKv reason) {
    metrics.handOverWithoutKv(reason);
    if (reason == HandOverBodies.WithoutKv.ABSENT && warnedNoKv.first(pid)) {
      log.warn(
          "prefill worker answered without kv_transfer_params; decode computes the prompt"
              + " itself (is its --kv-transfer-config set?) worker={} request_id={}",
          pid,
          ex.requestId);
    } else {
      log.debug(
          "handover without kv request_id={} prefill={} reason={}",
          ex.requestId,
          pid,
          reason.label());
    }
  }

  /** Sends the decode half and forwards its answer to the client. */
  private void sendDecode(Exchange ex, Attempt decode, byte[] body) {
    upstream
        .send(ex, decode, body, req -> ex.upstream = req)
        .onComplete(
            ar -> {
              if (ex.clientGone || ex.finished) {
                if (ar.succeeded()) {
                  Upstream.drain(ar.result());
                }
                return;
              }
              if (ar.failed()) {
                decode.failed();
                ex.fail(
                    new RoutingFailure.UpstreamFailed(
                        "decode worker "
                            + decode.worker()
                            + " failed before responding: "
                            + ar.cause()));
                if (ex.prefillUpstream != null) {
                  ex.prefillUpstream.reset();
                }
                return;
              }
              HttpClientResponse resp = ar.result();
              decode.answered(resp.statusCode());
              upstream.forward(ex, decode, resp);
            });
  }
}
