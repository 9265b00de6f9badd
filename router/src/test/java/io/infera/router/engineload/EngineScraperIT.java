package io.infera.router.engineload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.infera.router.config.EngineLoadConfig;
import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.WorkerId;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The scraper against a real loopback HTTP server that answers as told, hostile included. */
class EngineScraperIT {

  private static final String GOOD =
      "vllm:num_requests_running{model_name=\"m\",engine=\"0\"} 4.0\n"
          + "vllm:num_requests_waiting{model_name=\"m\",engine=\"0\"} 2.0\n";
  private static final int CAP = 4096;

  /** What the server does for the next request. */
  private interface Answer {
    void handle(HttpExchange ex) throws IOException;
  }

  private final AtomicReference<Answer> answer = new AtomicReference<>();
  private final AtomicInteger hits = new AtomicInteger();
  private HttpServer server;
  private final java.util.concurrent.atomic.AtomicLong now =
      new java.util.concurrent.atomic.AtomicLong();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.createContext(
        "/metrics",
        ex -> {
          hits.incrementAndGet();
          try {
            answer.get().handle(ex);
          } finally {
            ex.close();
          }
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private static EngineLoadConfig config(long timeoutMs, Set<String> optOutPools) {
    return new EngineLoadConfig(true, 50, timeoutMs, 10_000, 1.0, CAP, Set.of(), optOutPools);
  }

  private WorkerInfo worker(String id, String url, String pool) {
    return new WorkerInfo(
        WorkerId.of(id), url, Role.MIXED, "vllm", 1, null, null, WorkerInfo.Readiness.READY, pool);
  }

  private String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private static void send(HttpExchange ex, int status, byte[] body) throws IOException {
    ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    try (OutputStream o = ex.getResponseBody()) {
      o.write(body);
    }
  }

  private ScrapeOutcome scrapeOnce(EngineLoadTable table, EngineLoadConfig cfg) throws Exception {
    WorkerInfo w = worker("w0", url(), "p");
    try (EngineScraper s = new EngineScraper(cfg, table, () -> List.of(w), id -> 1)) {
      s.scrape(w).get(10, TimeUnit.SECONDS);
    }
    for (ScrapeOutcome o : ScrapeOutcome.values()) {
      if (table.scrapes(w.id(), o) > 0) {
        return o;
      }
    }
    throw new AssertionError("no outcome recorded");
  }

  private EngineLoadTable table(EngineLoadConfig cfg) {
    return new EngineLoadTable(cfg, now::get);
  }

  @Test
  void aGoodAnswerBecomesTheWorkersSnapshot() throws Exception {
    answer.set(ex -> send(ex, 200, GOOD.getBytes(StandardCharsets.UTF_8)));
    EngineLoadTable t = table(config(2000, Set.of()));
    assertThat(scrapeOnce(t, config(2000, Set.of()))).isEqualTo(ScrapeOutcome.OK);
    // 6 on the engine, 1 in flight from the router: 5 unseen, 1 block each (no bookings yet).
    assertThat(t.term(WorkerId.of("w0")).blocks()).isEqualTo(5.0);
  }

  @Test
  void aBodyAtTheCapIsReadOneBytePastItFails() throws Exception {
    String padded = GOOD + "#" + "x".repeat(CAP - GOOD.length() - 2) + "\n";
    assertThat(padded).hasSize(CAP);
    // Chunked (no Content-Length): the cap is enforced while reading.
    answer.set(
        ex -> {
          ex.sendResponseHeaders(200, 0);
          try (OutputStream o = ex.getResponseBody()) {
            o.write(padded.getBytes(StandardCharsets.UTF_8));
          }
        });
    assertThat(scrapeOnce(table(config(2000, Set.of())), config(2000, Set.of())))
        .isEqualTo(ScrapeOutcome.OK);
    answer.set(
        ex -> {
          ex.sendResponseHeaders(200, 0);
          try (OutputStream o = ex.getResponseBody()) {
            o.write((padded + "y").getBytes(StandardCharsets.UTF_8));
          }
        });
    assertThat(scrapeOnce(table(config(2000, Set.of())), config(2000, Set.of())))
        .isEqualTo(ScrapeOutcome.TOO_LARGE);
  }

  @Test
  void anAnnouncedOversizeBodyIsRefusedUnread() throws Exception {
    answer.set(ex -> send(ex, 200, ("#" + "z".repeat(64 * 1024) + "\n" + GOOD).getBytes()));
    assertThat(scrapeOnce(table(config(2000, Set.of())), config(2000, Set.of())))
        .isEqualTo(ScrapeOutcome.TOO_LARGE);
  }

  @Test
  void anEndlessBodyStopsAtTheCap() throws Exception {
    answer.set(
        ex -> {
          ex.sendResponseHeaders(200, 0);
          byte[] chunk = new byte[1024];
          java.util.Arrays.fill(chunk, (byte) '#');
          try (OutputStream o = ex.getResponseBody()) {
            for (int i = 0; i < 1_000_000; i++) {
              o.write(chunk);
            }
          } catch (IOException closedByTheClient) {
            // expected: the scraper cancelled
          }
        });
    assertThat(scrapeOnce(table(config(5000, Set.of())), config(5000, Set.of())))
        .isEqualTo(ScrapeOutcome.TOO_LARGE);
  }

  @Test
  void errorsTimeoutsRefusalsAndForeignBodiesAreCountedByResult() throws Exception {
    answer.set(ex -> send(ex, 503, "busy".getBytes()));
    assertThat(scrapeOnce(table(config(2000, Set.of())), config(2000, Set.of())))
        .isEqualTo(ScrapeOutcome.HTTP_ERROR);

    answer.set(ex -> send(ex, 200, "<html>hello</html>\nprocess_cpu 1\n".getBytes()));
    assertThat(scrapeOnce(table(config(2000, Set.of())), config(2000, Set.of())))
        .isEqualTo(ScrapeOutcome.NO_SERIES);

    answer.set(
        ex -> {
          try {
            Thread.sleep(1500);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          send(ex, 200, GOOD.getBytes());
        });
    assertThat(scrapeOnce(table(config(200, Set.of())), config(200, Set.of())))
        .isEqualTo(ScrapeOutcome.TIMEOUT);

    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    EngineLoadConfig cfg = config(2000, Set.of());
    EngineLoadTable t = table(cfg);
    WorkerInfo w = worker("w0", "http://127.0.0.1:" + closed, "p");
    try (EngineScraper s = new EngineScraper(cfg, t, () -> List.of(w), id -> 0)) {
      s.scrape(w).get(10, TimeUnit.SECONDS);
    }
    assertThat(t.scrapes(w.id(), ScrapeOutcome.CONNECT_ERROR)).isEqualTo(1);
  }

  @Test
  void roundsFollowDiscoveryAndSkipOptedOutPools() throws Exception {
    answer.set(ex -> send(ex, 200, GOOD.getBytes()));
    EngineLoadConfig cfg = config(2000, Set.of("quiet"));
    EngineLoadTable t = table(cfg);
    AtomicReference<List<WorkerInfo>> fleet =
        new AtomicReference<>(List.of(worker("a", url(), "p"), worker("b", url(), "quiet")));
    try (EngineScraper s = new EngineScraper(cfg, t, fleet::get, id -> 0).start()) {
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> t.scrapes(WorkerId.of("a"), ScrapeOutcome.OK) >= 2);
      assertThat(t.scrapes(WorkerId.of("b"), ScrapeOutcome.OK)).isZero();
      fleet.set(List.of(worker("c", url(), "p")));
      long aBefore = t.scrapes(WorkerId.of("a"), ScrapeOutcome.OK);
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> t.scrapes(WorkerId.of("c"), ScrapeOutcome.OK) >= 2);
      // One scrape of a may still have been in flight when it left.
      assertThat(t.scrapes(WorkerId.of("a"), ScrapeOutcome.OK)).isLessThanOrEqualTo(aBefore + 1);
    }
  }

  @Test
  void aSlowWorkerHasAtMostOneScrapeInFlight() throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    answer.set(
        ex -> {
          try {
            release.await(5, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          send(ex, 200, GOOD.getBytes());
        });
    EngineLoadConfig cfg = config(5000, Set.of());
    EngineLoadTable t = table(cfg);
    WorkerInfo w = worker("w0", url(), "p");
    try (EngineScraper s = new EngineScraper(cfg, t, () -> List.of(w), id -> 0).start()) {
      Thread.sleep(500); // ten intervals
      assertThat(hits.get()).isEqualTo(1);
      release.countDown();
      await().atMost(Duration.ofSeconds(5)).until(() -> hits.get() >= 2);
    }
  }
}
