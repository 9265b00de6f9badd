package io.infera.router.http;

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

  /** Prefill workers already warned about for answering without {@code kv_transfer_params}. */
  private final OncePerWorker warnedNoKv = new OncePerWorker();

  DisaggregatedDispatch(Upstream upstream, WorkerExecutor pool, ProxyMetrics metrics) {
    this.upstream = upstream;
    this.pool = pool;
    this.metrics = metrics;
  }

  void start(Exchange ex, RequestRouter.Pick.Pair pair) {
    Attempt prefill = new Attempt(pair.prefill());
    Attempt decode = new Attempt(pair.decode());
    ex.main = decode;
    ex.prefill = prefill;
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
    switch (engine) {
      case "vllm" -> kvTransferParams(ex, prefill, decode, false);
      case "atom" -> kvTransferParams(ex, prefill, decode, true);
      default -> sglang(ex, prefill, decode);
    }
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
        "route pair request_id={} prefill={} decode={} blocks={} prefill_hits={} room={}",
        ex.requestId,
        prefill.worker(),
        decode.worker(),
        p.decision().requestBlocks(),
        p.hitBlocks(),
        room);
    upstream
        .send(ex, prefill, body, req -> ex.prefillUpstream = req)
        .onComplete(
            ar -> {
              if (ar.succeeded() && ar.result().statusCode() < 500) {
                prefill.answered(ar.result().statusCode());
                prefill.firstToken();
                HttpClientResponse resp = ar.result();
                // Its answer is not the client's: read it away, closing the attempt at its end
                // or when the connection breaks halfway.
                // SGLang's prefill answer carries the cached tokens under PD: tap it too.
                UsageTap tap = upstream.usage().tap(prefill, resp);
                resp.endHandler(
                    v -> {
                      prefill.firstToken();
                      prefill.close();
                      if (tap != null) {
                        upstream.usage().report(prefill.plan(), tap.result());
                      }
                    });
                resp.exceptionHandler(e -> prefill.close());
                resp.handler(
                    buf -> {
                      prefill.firstToken();
                      if (tap != null) {
                        tap.accept(buf);
                      }
                    });
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
                          prefill.firstToken(); // a one-token answer: prefill is done
                        }
                        prefill.close();
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
