package io.infera.router.http;

import io.infera.router.admin.AdminViews;
import io.infera.router.json.Json;
import io.infera.router.routing.RequestAnalyzer;
import io.infera.router.routing.RequestAnalyzer.Endpoint;
import io.infera.router.routing.RequestRouter;
import io.infera.router.routing.RoutingFailure;
import io.infera.router.runtime.RouterRuntime;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's HTTP servers (docs/architecture.md, "HTTP API"). The public port serves the proxied
 * endpoints ({@link Endpoint}: OpenAI chat, completions, Responses, embeddings, Anthropic Messages,
 * {@code /tokenize}, {@code /detokenize}), models, health and readiness, nothing else; the admin
 * port ({@code admin.port}, optionally behind a bearer token) serves workers, metrics and the admin
 * API. Both run under a {@link ConnectionGuard}; the API requests under an {@link InFlightLimit}.
 * Graceful shutdown stops accepting, lets in-flight requests finish up to {@code
 * limits.shutdownTimeoutMs}, then closes.
 */
public final class RouterServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RouterServer.class);

  private final Vertx vertx;
  private final RouterRuntime rt;
  private final HttpClient client;
  private final WorkerExecutor pool;
  private final ProxyHandler proxy;
  private final EngineTokenizer engineTokenizer;
  private final RenderParityProber parityProber;
  private final ParityTokens explainTokens;
  private final boolean ownsVertx;
  private final ConnectionGuard publicGuard;
  private final ConnectionGuard adminGuard;
  private final InFlightLimit inFlight;
  private final AdminAuth auth;
  private HttpServer server;
  private HttpServer adminServer;
  private volatile int adminPort = -1;

  /** Longest request line (method, path, version) either port accepts; longer gets 414. */
  static final int MAX_INITIAL_LINE = 8192;

  /** Most bytes of request headers either port accepts; more gets 431. */
  static final int MAX_HEADER_BYTES = 65536;

  /** Most request header lines either port accepts; more gets 431. */
  static final int MAX_HEADER_COUNT = 128;

  /** Cap on the admin port's open connections (scrapers and the operator need a handful). */
  static final int ADMIN_MAX_CONNECTIONS = 64;

  public RouterServer(Vertx vertx, RouterRuntime rt) {
    this(vertx, rt, false);
  }

  /** A server with a Vert.x instance of its own, closed with it (the {@code serve} command). */
  public static RouterServer standalone(RouterRuntime rt) {
    return new RouterServer(Vertx.vertx(), rt, true);
  }

  private RouterServer(Vertx vertx, RouterRuntime rt, boolean ownsVertx) {
    this.vertx = vertx;
    this.ownsVertx = ownsVertx;
    this.rt = rt;
    var limits = rt.config().limits();
    this.client =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setKeepAlive(true)
                .setTcpNoDelay(true)
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, limits.connectTimeoutMs()))
                .setMaxInitialLineLength(65536)
                .setMaxHeaderSize(65536)
                .setDecompressionSupported(false),
            new PoolOptions().setHttp1MaxSize(256).setMaxWaitQueueSize(-1));
    int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
    this.pool = vertx.createSharedWorkerExecutor("infera-tokenize", threads, 60, TimeUnit.SECONDS);
    ProxyMetrics metrics = new ProxyMetrics();
    metrics.bindTo(rt.registry());
    this.engineTokenizer =
        new EngineTokenizer(
            client,
            pool,
            limits,
            rt.router(),
            rt.analyzer(),
            rt.routingMetrics(),
            // Engine mode (no local tokenizer), not a local one that is still missing its files.
            rt.tokenizer() == null && rt.tokenizerProblem() == null);
    this.parityProber = new RenderParityProber(vertx, client, pool, rt);
    this.explainTokens = new ParityTokens(rt.renderParity(), rt.fleet(), engineTokenizer, false);
    var admin = rt.config().admin();
    this.proxy =
        new ProxyHandler(
            rt,
            pool,
            metrics,
            new Upstream(
                client,
                limits,
                metrics,
                admin.cacheHitHeader(),
                new UsageReports(
                    rt.indexAccuracy(),
                    rt.config().pageSize(),
                    task ->
                        pool.executeBlocking(
                            () -> {
                              task.run();
                              return null;
                            },
                            false))),
            engineTokenizer);
    var serverLimits = rt.config().server();
    this.publicGuard = new ConnectionGuard("public", serverLimits, serverLimits.maxConnections());
    this.adminGuard = new ConnectionGuard("admin", serverLimits, ADMIN_MAX_CONNECTIONS);
    this.inFlight = new InFlightLimit(serverLimits.maxInFlight());
    publicGuard.bindTo(rt.registry());
    adminGuard.bindTo(rt.registry());
    inFlight.bindTo(rt.registry());
    this.auth =
        admin.tokenFile() == null
            ? AdminAuth.none()
            : AdminAuth.fromFile(java.nio.file.Path.of(admin.tokenFile()));
  }

  /**
   * Binds {@code listen.host:listen.port} and {@code admin.host:admin.port}; completes with the
   * public port (the admin one is {@link #adminPort}). If either cannot be bound, neither stays.
   */
  public Future<Integer> start() {
    long maxBody = rt.config().limits().maxBodyBytes();
    BodyHandler body = BodyHandler.create(false).setBodyLimit(maxBody);
    Router api = Router.router(vertx);
    api.route().handler(ctx -> admit(ctx, publicGuard));
    for (Endpoint endpoint : Endpoint.values()) {
      api.post(endpoint.path())
          .handler(inFlight)
          .handler(body)
          .handler(ctx -> proxy.handle(ctx, endpoint));
    }
    api.get("/v1/models").handler(ctx -> json(ctx, 200, AdminViews.models(rt)));
    api.get("/health").handler(ctx -> json(ctx, 200, Map.of("status", "ok")));
    api.get("/ready").handler(this::ready);
    endRoutes(api, maxBody);

    Router admin = Router.router(vertx);
    admin.route().handler(ctx -> admit(ctx, adminGuard)).handler(this::authorize);
    if (rt.config().admin().explain()) {
      admin.post("/v1/admin/explain").handler(inFlight).handler(body).handler(this::explain);
    }
    admin.get("/v1/workers").handler(ctx -> json(ctx, 200, AdminViews.workers(rt)));
    admin.get("/v1/admin/status").handler(ctx -> json(ctx, 200, AdminViews.status(rt)));
    admin.get("/v1/admin/cache-view/:worker").handler(this::cacheView);
    admin.get("/metrics").handler(this::metrics);
    endRoutes(admin, maxBody);

    var listen = rt.config().listen();
    var adminCfg = rt.config().admin();
    server = listener(listen.host(), listen.port(), publicGuard, api);
    adminServer = listener(adminCfg.host(), adminCfg.port(), adminGuard, admin);
    return server
        .listen()
        .recover(
            e ->
                Future.failedFuture(
                    bindFailure(listen.host(), listen.port(), "HTTP, listen.port / --port", e)))
        .compose(
            s ->
                adminServer
                    .listen()
                    .recover(
                        e ->
                            server
                                .close()
                                .transform(
                                    v ->
                                        Future.failedFuture(
                                            bindFailure(
                                                adminCfg.host(),
                                                adminCfg.port(),
                                                "admin, admin.port",
                                                e))))
                    .map(
                        a -> {
                          adminPort = a.actualPort();
                          parityProber.start();
                          log.info(
                              "router listening host={} port={} admin_host={} admin_port={}"
                                  + " admin_token={}",
                              listen.host(),
                              s.actualPort(),
                              adminCfg.host(),
                              adminPort,
                              auth.required());
                          return s.actualPort();
                        }));
  }

  /** The bound admin port, or -1 before {@link #start} completed. */
  public int adminPort() {
    return adminPort;
  }

  private HttpServer listener(String host, int port, ConnectionGuard guard, Router router) {
    HttpServer s =
        vertx.createHttpServer(
            new HttpServerOptions()
                .setHost(host)
                .setPort(port)
                .setTcpNoDelay(true)
                // HTTP/1.1 only. With h2c on, Vert.x sniffs the first bytes before it makes the
                // connection, so a client that sends nothing would never be seen by the guard.
                .setHttp2ClearTextEnabled(false)
                .setDecompressionSupported(false)
                .setMaxInitialLineLength(MAX_INITIAL_LINE)
                .setMaxHeaderSize(MAX_HEADER_BYTES));
    return s.connectionHandler(guard::connected)
        .requestHandler(
            req -> {
              guard.headers(req);
              router.handle(req);
            });
  }

  /** First on every route: the connection goes idle once this answer ends; header count. */
  private void admit(RoutingContext ctx, ConnectionGuard guard) {
    guard.answering(ctx);
    int count = 0;
    for (var ignored : ctx.request().headers()) {
      count++;
    }
    if (count > MAX_HEADER_COUNT) {
      ErrorResponses.send(
          ctx,
          new RoutingFailure.HeadersTooLarge(
              count + " request headers, at most " + MAX_HEADER_COUNT),
          requestId(ctx));
      return;
    }
    ctx.next();
  }

  /** The admin port's bearer token, when one is configured. */
  private void authorize(RoutingContext ctx) {
    if (auth.allows(ctx.request().getHeader("authorization"))) {
      ctx.next();
      return;
    }
    ErrorResponses.send(
        ctx.response(),
        new RoutingFailure.Unauthorized(
            "the admin port needs 'Authorization: Bearer <token>' (admin.tokenFile)"),
        requestId(ctx));
  }

  private static void endRoutes(Router router, long maxBody) {
    router
        .route()
        .last()
        .handler(
            ctx ->
                ErrorResponses.send(
                    ctx,
                    new RoutingFailure.NotFound(
                        "no route for " + ctx.request().method() + " " + ctx.request().path()),
                    requestId(ctx)));
    router
        .route()
        .failureHandler(
            ctx -> {
              if (ctx.response().closed()
                  || ctx.failure() instanceof io.vertx.core.http.HttpClosedException) {
                return; // the client left (or a deadline cut it): nobody to answer
              }
              RoutingFailure f;
              if (ctx.statusCode() == 413) {
                f =
                    new RoutingFailure.TooLarge(
                        "request body exceeds the limit of " + maxBody + " bytes");
              } else if (ctx.statusCode() == 400) {
                f = new RoutingFailure.BadRequest("malformed request", null);
              } else if (ctx.statusCode() == 405) {
                f = new RoutingFailure.NotFound("method not allowed");
              } else {
                log.error("unhandled failure path={}", ctx.request().path(), ctx.failure());
                f = new RoutingFailure.Internal("internal error");
              }
              ErrorResponses.send(ctx, f, requestId(ctx));
            });
  }

  /**
   * {@link #start}, waiting up to {@code timeout} for the bound port (for callers outside Vert.x).
   *
   * @throws Exception the start failure (e.g. the port in use, named), or a timeout
   */
  public int startAndWait(java.time.Duration timeout) throws Exception {
    try {
      return start()
          .toCompletionStage()
          .toCompletableFuture()
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  /** A bind failure that names the address and the setting behind it. */
  static IllegalStateException bindFailure(String host, int port, String what0, Throwable cause) {
    String what =
        cause instanceof java.net.BindException
                || String.valueOf(cause.getMessage()).contains("Address already in use")
            ? "is already in use"
            : "cannot be bound (" + cause.getMessage() + ")";
    return new IllegalStateException(
        "port " + port + " on " + host + " (" + what0 + ") " + what, cause);
  }

  private void ready(RoutingContext ctx) {
    List<String> reasons = rt.notReadyReasons();
    if (reasons.isEmpty()) {
      json(ctx, 200, Map.of("ready", true));
    } else {
      json(ctx, 503, Map.of("ready", false, "reasons", reasons));
    }
  }

  private void metrics(RoutingContext ctx) {
    pool.executeBlocking(rt::scrape, false)
        .onSuccess(
            text ->
                ctx.response()
                    .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8")
                    .end(text))
        .onFailure(e -> ctx.fail(500, e));
  }

  private void cacheView(RoutingContext ctx) {
    String worker = ctx.pathParam("worker");
    Map<String, Object> view = AdminViews.cacheView(rt, worker);
    if (view == null) {
      ErrorResponses.send(
          ctx.response(),
          new RoutingFailure.NotFound("unknown worker '" + worker + "'"),
          requestId(ctx));
    } else {
      json(ctx, 200, view);
    }
  }

  private void explain(RoutingContext ctx) {
    String requestId = requestId(ctx);
    Buffer body = ctx.body().buffer();
    if (body == null || body.length() == 0) {
      ErrorResponses.send(
          ctx.response(), new RoutingFailure.BadRequest("request body is empty", null), requestId);
      return;
    }
    byte[] bytes = body.getBytes();
    Endpoint endpoint = bytesContain(bytes, "\"messages\"") ? Endpoint.CHAT : Endpoint.COMPLETIONS;
    java.util.concurrent.atomic.AtomicBoolean gone =
        new java.util.concurrent.atomic.AtomicBoolean();
    ctx.response().closeHandler(v -> gone.set(true));
    Future.fromCompletionStage(
            rt.analysisBudget()
                .submit(
                    bytes.length,
                    gone::get,
                    () -> rt.analyzer().analyze(bytes, endpoint, gone::get),
                    null),
            ctx.vertx().getOrCreateContext())
        .onComplete(
            ar -> {
              if (gone.get()) {
                return;
              }
              if (ar.failed()
                  && ar.cause() instanceof io.infera.router.routing.AnalysisBudget.Refused r) {
                ErrorResponses.send(ctx.response(), r.failure(), requestId);
                return;
              }
              if (ar.failed()) {
                ErrorResponses.send(
                    ctx.response(), new RoutingFailure.Internal("internal error"), requestId);
                return;
              }
              if (ar.result() instanceof RequestAnalyzer.Result.Failed f) {
                ErrorResponses.send(ctx.response(), f.failure(), requestId);
                return;
              }
              engineTokenizer
                  .withEngineTokens(((RequestAnalyzer.Result.Ok) ar.result()).analyzed(), requestId)
                  .compose(
                      analyzed ->
                          explainTokens
                              .own(analyzed, requestId)
                              .map(own -> Map.entry(analyzed, own)))
                  .onSuccess(
                      both -> {
                        RequestAnalyzer.Analyzed analyzed = both.getKey();
                        RequestRouter.Pick pick =
                            rt.router()
                                .explain(
                                    analyzed.hashes(),
                                    both.getValue(),
                                    analyzed.media(),
                                    ProxyHandler.sessionKey(rt, ctx, analyzed, false));
                        if (pick instanceof RequestRouter.Pick.Failed f) {
                          ErrorResponses.send(ctx.response(), f.failure(), requestId);
                          return;
                        }
                        json(
                            ctx,
                            200,
                            AdminViews.explain(analyzed, ((RequestRouter.Pick.Ok) pick).plan()));
                      });
            });
  }

  private static boolean bytesContain(byte[] hay, String needle) {
    return new String(hay, java.nio.charset.StandardCharsets.UTF_8).contains(needle);
  }

  private static void json(RoutingContext ctx, int status, Object body) {
    ctx.response()
        .setStatusCode(status)
        .putHeader("content-type", "application/json")
        .putHeader("x-request-id", requestId(ctx))
        .end(Json.write(body));
  }

  /** The request id: the client's {@code x-request-id}, or a new one. */
  static String requestId(RoutingContext ctx) {
    String id = ctx.get("infera.request-id");
    if (id == null) {
      id = ctx.request().getHeader("x-request-id");
      if (id == null || id.isBlank() || id.length() > 128) {
        id = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
      }
      ctx.put("infera.request-id", id);
    }
    return id;
  }

  /**
   * Graceful shutdown: readiness turns false, the server stops accepting, in-flight requests get up
   * to {@code limits.shutdownTimeoutMs}, then everything closes.
   */
  public Future<Void> shutdown() {
    rt.beginShutdown();
    vertx.runOnContext(v -> parityProber.stop());
    long timeout = rt.config().limits().shutdownTimeoutMs();
    Future<Void> admin =
        adminServer == null
            ? Future.succeededFuture()
            : adminServer.shutdown(timeout, TimeUnit.MILLISECONDS);
    Future<Void> stopped =
        (server == null
                ? Future.<Void>succeededFuture()
                : server.shutdown(timeout, TimeUnit.MILLISECONDS))
            .eventually(() -> admin);
    Future<Void> closed = stopped.eventually(() -> client.close()).eventually(() -> pool.close());
    return ownsVertx ? closed.eventually(() -> vertx.close()) : closed;
  }

  @Override
  public void close() {
    try {
      shutdown()
          .toCompletionStage()
          .toCompletableFuture()
          .get(rt.config().limits().shutdownTimeoutMs() + 5000, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      log.warn("shutdown did not complete cleanly: {}", e.toString());
    }
  }
}
