package io.infera.router.discovery;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Probes each worker's {@code GET /health} on its own thread. A worker that fails {@code
 * failuresToDown} probes in a row is reported unhealthy (out of rotation); one success brings it
 * back. Used with the static backend (Kubernetes readiness plays this role for pods).
 */
public final class HealthChecker implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(HealthChecker.class);

  private final Supplier<List<WorkerInfo>> workers;
  private final BiConsumer<WorkerInfo, Boolean> report;
  private final long intervalMs;
  private final int failuresToDown;
  private final HttpClient client;
  private final ScheduledExecutorService scheduler;
  private final Map<String, Integer> failures = new ConcurrentHashMap<>();
  private final Map<String, Boolean> healthy = new ConcurrentHashMap<>();

  /**
   * @param report called with (worker, healthy) whenever a worker's health flips
   */
  public HealthChecker(
      Supplier<List<WorkerInfo>> workers,
      BiConsumer<WorkerInfo, Boolean> report,
      long intervalMs,
      int failuresToDown) {
    this.workers = workers;
    this.report = report;
    this.intervalMs = intervalMs;
    this.failuresToDown = failuresToDown;
    this.client =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofMillis(Math.max(200, Math.min(intervalMs, 2000))))
            .build();
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "infera-health");
              t.setDaemon(true);
              return t;
            });
  }

  public HealthChecker start() {
    scheduler.scheduleWithFixedDelay(this::probeAll, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    return this;
  }

  /** One round of probes (also called by tests). */
  public void probeAll() {
    for (WorkerInfo w : workers.get()) {
      boolean ok = probe(w);
      String key = w.id().value();
      int f = ok ? 0 : failures.merge(key, 1, Integer::sum);
      if (ok) {
        failures.put(key, 0);
      }
      boolean now = ok || f < failuresToDown;
      Boolean before = healthy.put(key, now);
      if (before == null ? !now : before != now) {
        log.info("health worker={} healthy={}", key, now);
        report.accept(w, now);
      }
    }
  }

  private boolean probe(WorkerInfo w) {
    try {
      HttpRequest req =
          HttpRequest.newBuilder(URI.create(w.url() + "/health"))
              .timeout(Duration.ofMillis(Math.max(200, Math.min(intervalMs, 2000))))
              .GET()
              .build();
      HttpResponse<Void> resp = client.send(req, HttpResponse.BodyHandlers.discarding());
      return resp.statusCode() < 500;
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return false;
    }
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }
}
