package io.infera.router.http;

import io.infera.router.config.RouterConfig;
import io.infera.router.routing.RoutingFailure;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.streams.ReadStream;
import java.util.Locale;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's two wire steps: sending a body to a worker with the client's end-to-end headers, and
 * streaming a worker's answer back to the client unchanged, with backpressure (never aggregated,
 * never re-framed). Event-loop only; nothing here blocks.
 */
final class Upstream {

  private static final Logger log = LoggerFactory.getLogger(Upstream.class);

  private final HttpClient client;
  private final RouterConfig.Limits limits;
  private final ProxyMetrics metrics;
  private final boolean cacheHitHeader;
  private final UsageReports usage;

  Upstream(
      HttpClient client, RouterConfig.Limits limits, ProxyMetrics metrics, boolean cacheHitHeader) {
    this(client, limits, metrics, cacheHitHeader, UsageReports.NONE);
  }

  Upstream(
      HttpClient client,
      RouterConfig.Limits limits,
      ProxyMetrics metrics,
      boolean cacheHitHeader,
      UsageReports usage) {
    this.client = client;
    this.limits = limits;
    this.metrics = metrics;
    this.cacheHitHeader = cacheHitHeader;
    this.usage = usage;
  }

  /** Where the engines' reported cached tokens go (index accuracy). */
  UsageReports usage() {
    return usage;
  }

  /**
   * Sends {@code body} to {@code attempt}'s worker at the exchange's endpoint, with the client's
   * headers, the request id and (for a data-parallel worker) the rank that caches the most.
   *
   * @param started receives the request once it exists, so a client disconnect can reset it
   * @return the worker's response head (time to it is recorded as the worker's first byte)
   */
  Future<HttpClientResponse> send(
      Exchange ex, Attempt attempt, byte[] body, Consumer<HttpClientRequest> started) {
    RequestOptions opts =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setAbsoluteURI(attempt.plan().worker().info().url() + ex.endpoint.path())
            .setConnectTimeout(limits.connectTimeoutMs())
            .setIdleTimeout(limits.firstByteTimeoutMs());
    MultiMap in = ex.ctx.request().headers();
    int internal = HeaderFilter.copy(in, HeaderFilter.From.CLIENT, opts::addHeader);
    if (internal > 0) {
      metrics.internalHeadersDropped(internal);
    }
    opts.putHeader("x-request-id", ex.requestId);
    if (attempt.plan().worker().info().dpSize() > 1) {
      opts.putHeader("X-data-parallel-rank", Integer.toString(attempt.plan().dpRank()));
    }
    attempt.sent();
    long sentAt = System.nanoTime();
    return client
        .request(opts)
        .compose(
            req -> {
              started.accept(req);
              if (ex.clientGone) {
                req.reset();
              }
              return sendBody(req, body);
            })
        .onSuccess(resp -> metrics.firstByte(attempt.worker(), System.nanoTime() - sentAt));
  }

  /**
   * Streams {@code resp} to the client as {@code attempt}'s answer and ends the exchange when it
   * ends; a successful answer's first chunk (or its end) is the worker's first token. A stream that
   * breaks after the first byte is reported (an SSE error event, or a reset), never retried.
   */
  void forward(Exchange ex, Attempt attempt, HttpClientResponse resp) {
    HttpServerResponse out = ex.ctx.response();
    out.setStatusCode(resp.statusCode());
    MultiMap outHeaders = out.headers();
    HeaderFilter.copy(resp.headers(), HeaderFilter.From.ENGINE, outHeaders::add);
    String length = resp.getHeader("content-length");
    if (length != null) {
      out.putHeader("content-length", length);
    } else {
      out.setChunked(true);
    }
    out.putHeader("x-request-id", ex.requestId);
    out.putHeader("x-infera-worker", attempt.worker());
    if (cacheHitHeader) {
      Attempt cache = ex.prefill != null ? ex.prefill : attempt;
      out.putHeader("x-infera-cache-hit-blocks", Integer.toString(cache.plan().hitBlocks()));
    }
    if (ex.prefill != null) {
      out.putHeader("x-infera-prefill-worker", ex.prefill.worker());
    }
    ex.responding = true;
    boolean sse =
        String.valueOf(resp.getHeader("content-type"))
            .toLowerCase(Locale.ROOT)
            .startsWith("text/event-stream");
    // Under PD the prefill answer is the one compared (DisaggregatedDispatch reads it).
    UsageTap tap = ex.prefill == null ? usage.tap(attempt, resp) : null;
    // A streamed success's first chunk is the first token (engines stream nothing before prefill
    // is done): the prefill charges (the worker's, and under PD the prefill worker's) leave the
    // load and the tuner hears the time to it. An error's timing says nothing about prefill, and a
    // whole answer ends after decode: their charges leave at release, or drain with time.
    FirstChunk first =
        sse && resp.statusCode() < 300 ? new FirstChunk(() -> firstToken(ex, attempt)) : null;
    ReadStream<Buffer> body = ObservedStream.of(resp, tap, first);
    body.pipe()
        .endOnFailure(false)
        .to(out)
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                if (tap != null) {
                  usage.report(attempt.plan(), tap);
                }
                ex.finish(Integer.toString(resp.statusCode()));
                return;
              }
              log.info(
                  "stream broke request_id={} worker={} error={}",
                  ex.requestId,
                  attempt.worker(),
                  ar.cause().toString());
              if (!ex.clientGone && !out.ended() && !out.closed()) {
                if (sse) {
                  RoutingFailure broke =
                      new RoutingFailure.UpstreamFailed(
                          "worker " + attempt.worker() + " broke the stream");
                  // Anthropic's streams name their events; an error is an "error" event.
                  String event = ex.endpoint.anthropicErrors() ? "event: error\n" : "";
                  out.end(event + "data: " + ErrorResponses.body(broke, ex.endpoint) + "\n\n");
                } else {
                  out.reset();
                }
              }
              attempt.failed();
              ex.finish("upstream_broken");
            });
  }

  /** Bodies above this go out in slices of this size. */
  static final int SLICE_BYTES = 1 << 20;

  /**
   * Sends {@code body} as the request's whole body. A large one goes out in slices of {@value
   * #SLICE_BYTES} with backpressure, so at most a few slices are copied at a time instead of the
   * whole body (a 64 MiB body sent whole took another 64 MiB of heap and of direct memory, which
   * pushed a 1 GiB router past its limit). Writing stops at the first failed write; the failure (a
   * reset, a broken connection) reaches the caller through the response.
   */
  static Future<HttpClientResponse> sendBody(HttpClientRequest req, byte[] body) {
    if (body.length <= SLICE_BYTES) {
      return req.send(Buffer.buffer(body));
    }
    req.putHeader("content-length", Integer.toString(body.length));
    Future<HttpClientResponse> response = req.response();
    writeSlices(req, body, 0);
    return response;
  }

  private static void writeSlices(HttpClientRequest req, byte[] body, int from) {
    int at = from;
    while (at < body.length) {
      int n = Math.min(SLICE_BYTES, body.length - at);
      Buffer slice = Buffer.buffer(n).appendBytes(body, at, n);
      at += n;
      Future<Void> w = req.write(slice);
      if (w.failed()) {
        return;
      }
      if (req.writeQueueFull()) {
        int next = at;
        req.drainHandler(v -> writeSlices(req, body, next));
        return;
      }
    }
    req.end();
  }

  private static void firstToken(Exchange ex, Attempt attempt) {
    attempt.firstToken();
    if (ex.prefill != null) {
      ex.prefill.firstToken();
    }
  }

  /** An answer read whole was longer than its limit. */
  static final class TooLong extends RuntimeException {
    TooLong(long max) {
      super("answered more than " + max + " bytes", null, false, false);
    }
  }

  /**
   * Reads a whole answer that the router itself consumes (never the client's), at most {@code max}
   * bytes: a longer one, announced by its content-length or found while reading a chunked one,
   * fails with {@link TooLong} and its connection is reset. The answer is outside input.
   */
  static Future<Buffer> readAtMost(HttpClientResponse resp, int max) {
    Promise<Buffer> done = Promise.promise();
    resp.exceptionHandler(done::tryFail); // before any reset, which reports through it
    String length = resp.getHeader("content-length");
    if (length != null && parseLength(length) > max) {
      resp.request().reset();
      return Future.failedFuture(new TooLong(max));
    }
    Buffer acc = Buffer.buffer();
    resp.handler(
        buf -> {
          if (done.future().isComplete()) {
            return;
          }
          if (acc.length() + buf.length() > max) {
            done.tryFail(new TooLong(max));
            resp.request().reset();
            return;
          }
          acc.appendBuffer(buf);
        });
    resp.endHandler(v -> done.tryComplete(acc));
    resp.resume();
    return done.future();
  }

  /** A content-length value, or -1 when it is not a number. */
  static long parseLength(String s) {
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Reads an answer away unseen, so its pooled connection stays usable. */
  static void drain(HttpClientResponse resp) {
    resp.exceptionHandler(e -> {});
    resp.handler(buf -> {});
    resp.resume();
  }
}
