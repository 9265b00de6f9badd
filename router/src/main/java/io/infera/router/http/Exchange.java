package io.infera.router.http;

import io.infera.router.kv.WorkerId;
import io.infera.router.routing.RequestAnalyzer.Analyzed;
import io.infera.router.routing.RequestAnalyzer.Endpoint;
import io.infera.router.routing.RoutingFailure;
import io.infera.router.routing.SessionKey;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.ext.web.RoutingContext;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client request across its attempts: what the proxy knows of it and the one way it ends
 * ({@link #finish}, reached by completion, failure and client disconnect alike). Confined to the
 * request's event-loop context.
 */
final class Exchange {

  private static final Logger log = LoggerFactory.getLogger(Exchange.class);

  final RoutingContext ctx;
  final String requestId;
  final Endpoint endpoint;
  final byte[] body;
  final long start = System.nanoTime();
  final Set<WorkerId> tried = new HashSet<>();
  private final ProxyMetrics metrics;
  Analyzed analyzed;

  /** The request's session (null: none); the same for every attempt. */
  SessionKey session;

  /** Diverging workers' own hashes for this request (render parity); empty when none diverge. */
  java.util.Map<WorkerId, io.infera.router.kv.RequestHashes> ownHashes = java.util.Map.of();

  /** The attempt whose answer the client gets. */
  Attempt main;

  /** Disaggregated: the prefill half, whose answer is read away (it ends itself). */
  Attempt prefill;

  /**
   * Disaggregated, {@code policy.prefillGuardRelease: decode}: the prefill booking stays until the
   * request ends (then {@link #finish} releases it), not only until the prefill answer completes.
   */
  boolean prefillHeldUntilEnd;

  HttpClientRequest upstream;
  HttpClientRequest prefillUpstream;
  RoutingFailure lastUpstreamFailure;
  boolean responding;
  // read by the analysis thread (AnalysisBudget) to drop a request whose client left
  volatile boolean clientGone;
  boolean finished;

  Exchange(
      RoutingContext ctx, String requestId, Endpoint endpoint, byte[] body, ProxyMetrics metrics) {
    this.ctx = ctx;
    this.requestId = requestId;
    this.endpoint = endpoint;
    this.body = body;
    this.metrics = metrics;
  }

  /** The client closed the connection: stop the upstream requests and end here. */
  void clientGone() {
    if (finished) {
      return;
    }
    clientGone = true;
    if (upstream != null) {
      upstream.reset();
    }
    if (prefillUpstream != null) {
      prefillUpstream.reset();
    }
    finish("client_closed");
  }

  /** Ends the request once: closes its attempts and counts it. */
  void finish(String status) {
    if (finished) {
      return;
    }
    finished = true;
    if (main != null) {
      main.close();
    }
    // Otherwise the prefill half closes when its answer ends; one never sent (an abandoned pick)
    // has no answer to wait for.
    if (prefill != null && (clientGone || prefillHeldUntilEnd || !prefill.wasSent())) {
      prefill.close();
    }
    String worker = main == null ? null : main.worker();
    metrics.request(status, worker, System.nanoTime() - start);
    log.debug("done request_id={} status={} worker={}", requestId, status, worker);
  }

  /** Answers the client with {@code f} (unless the response has begun) and ends the request. */
  void fail(RoutingFailure f) {
    ErrorResponses.send(ctx.response(), f, requestId, endpoint);
    finish(Integer.toString(ErrorResponses.status(f)));
  }
}
