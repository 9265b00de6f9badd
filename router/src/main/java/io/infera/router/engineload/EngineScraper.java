package io.infera.router.engineload;

import io.infera.router.config.EngineLoadConfig;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.WorkerId;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scrapes every discovered worker's {@code GET /metrics} each {@code intervalMs} and reports the
 * result to an {@link EngineLoadTable}. Asynchronous: one scheduler thread starts the requests, the
 * JDK client's own threads (a small dedicated pool) read and parse the bodies; at most one scrape
 * per worker is in flight; each has a timeout and a body cap. Workers come and go with discovery:
 * every round scrapes the current list (minus the opted-out pools and workers), and a worker that
 * left is forgotten by the caller ({@link EngineLoadTable#forget}).
 */
public final class EngineScraper implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EngineScraper.class);

  private final EngineLoadConfig config;
  private final EngineLoadTable table;
  private final Supplier<List<WorkerInfo>> workers;
  private final ScheduledExecutorService scheduler;
  private final ExecutorService io;
  private final HttpClient client;
  private final Set<WorkerId> inFlight = ConcurrentHashMap.newKeySet();
  private final Set<WorkerId> warned = ConcurrentHashMap.newKeySet();

  private final java.util.function.ToIntFunction<WorkerId> routerInFlight;

  /**
   * @param routerInFlight the requests the router has in flight on a worker now
   */
  public EngineScraper(
      EngineLoadConfig config,
      EngineLoadTable table,
      Supplier<List<WorkerInfo>> workers,
      java.util.function.ToIntFunction<WorkerId> routerInFlight) {
    this.config = config;
    this.routerInFlight = routerInFlight;
    this.table = table;
    this.workers = workers;
    this.scheduler = Executors.newSingleThreadScheduledExecutor(daemon("infera-engine-scrape"));
    this.io = Executors.newFixedThreadPool(2, daemon("infera-engine-scrape-io"));
    this.client =
        HttpClient.newBuilder()
            .executor(io)
            .connectTimeout(Duration.ofMillis(config.timeoutMs()))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  public EngineScraper start() {
    scheduler.scheduleWithFixedDelay(this::round, 0, config.intervalMs(), TimeUnit.MILLISECONDS);
    return this;
  }

  /** Starts one scrape of every current worker that has none in flight (also used by tests). */
  void round() {
    try {
      Set<WorkerId> current = new HashSet<>();
      for (WorkerInfo w : workers.get()) {
        current.add(w.id());
        if (config.scrapes(w.id().value(), w.pool()) && inFlight.add(w.id())) {
          scrape(w).whenComplete((v, e) -> inFlight.remove(w.id()));
        }
      }
      warned.retainAll(current);
    } catch (RuntimeException e) {
      // The schedule must survive anything one round throws.
      log.warn("engine scrape round failed error={}", e.toString());
    }
  }

  /** One scrape of {@code w}; completes (never exceptionally) once the table was told. */
  CompletableFuture<Void> scrape(WorkerInfo w) {
    HttpRequest req;
    try {
      req =
          HttpRequest.newBuilder(URI.create(w.url() + "/metrics"))
              .timeout(Duration.ofMillis(config.timeoutMs()))
              .header("accept", "text/plain")
              .GET()
              .build();
    } catch (IllegalArgumentException e) {
      table.failed(w.id(), ScrapeOutcome.CONNECT_ERROR);
      return CompletableFuture.completedFuture(null);
    }
    long max = config.maxBodyBytes();
    int inFlightAtStart = routerInFlight.applyAsInt(w.id());
    long started = System.nanoTime();
    return client
        .sendAsync(
            req,
            info -> {
              long declared = info.headers().firstValueAsLong("content-length").orElse(-1);
              if (info.statusCode() != 200 || declared > max) {
                // Neither an error page nor an announced oversize body is read.
                return CappedBody.refusing(info.statusCode() == 200 ? null : new byte[0]);
              }
              return new CappedBody(max);
            })
        .handle(
            (resp, err) -> {
              ScrapeOutcome o;
              if (err != null) {
                o = outcome(err);
              } else if (resp.statusCode() != 200) {
                o = ScrapeOutcome.HTTP_ERROR;
              } else if (resp.body() == null) {
                o = ScrapeOutcome.TOO_LARGE;
              } else {
                o =
                    read(
                        w.id(),
                        resp.body(),
                        Math.max(inFlightAtStart, routerInFlight.applyAsInt(w.id())));
              }
              table.scrapeTook(System.nanoTime() - started);
              if (o != ScrapeOutcome.OK) {
                table.failed(w.id(), o);
                if (warned.add(w.id())) {
                  log.info("engine scrape failed worker={} result={}", w.id(), o.label());
                }
              } else {
                warned.remove(w.id());
              }
              return null;
            });
  }

  private ScrapeOutcome read(WorkerId id, byte[] body, int inFlight) {
    PromText.Result parsed =
        PromText.parse(
            new String(body, StandardCharsets.UTF_8),
            EngineStats.NAMES::contains,
            PromText.Limits.DEFAULTS);
    table.skipped(parsed);
    EngineStats stats = EngineStats.of(parsed);
    if (stats == null) {
      return ScrapeOutcome.NO_SERIES;
    }
    table.report(id, stats, inFlight);
    return ScrapeOutcome.OK;
  }

  static ScrapeOutcome outcome(Throwable err) {
    Throwable e = err;
    while ((e instanceof CompletionException
            || e instanceof java.util.concurrent.ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof CappedBody.TooLarge) {
        return ScrapeOutcome.TOO_LARGE;
      }
      if (c instanceof HttpTimeoutException) {
        return ScrapeOutcome.TIMEOUT;
      }
    }
    // Refused, reset, unresolvable, closed early: the engine could not be read.
    return ScrapeOutcome.CONNECT_ERROR;
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    io.shutdownNow();
  }
}
