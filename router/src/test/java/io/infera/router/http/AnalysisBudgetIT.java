package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.json.Json;
import io.micrometer.core.instrument.Counter;
import io.vertx.core.Vertx;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The tokenization and analysis budgets at the real HTTP server: over {@code tokenizeMaxChars} a
 * request is routed by load and served (explain says why), 429 only when the global budget is full,
 * 413 only above {@code maxBodyBytes}, and a client that leaves while its request waits for
 * analysis is never tokenized.
 */
class AnalysisBudgetIT {

  static Vertx vertx;
  static StubEngine engine;
  static RouterHarness router;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    engine = new StubEngine(vertx, "w1");
    router =
        RouterHarness.start(
            vertx,
            List.of(engine),
            "limits: {maxBodyBytes: 65536, tokenizeMaxChars: 2000, analysisConcurrency: 1,"
                + " analysisQueue: 1}\n");
    awaitTrue(() -> router.runtime.notReadyReasons().isEmpty());
  }

  @AfterAll
  static void stop() throws Exception {
    router.close();
    engine.close();
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static String words(int chars) {
    return "hello world ".repeat(chars / 12 + 1).substring(0, chars);
  }

  private static String completion(String prompt) {
    return Json.write(Map.of("model", "Qwen/Qwen3-0.6B", "prompt", prompt, "max_tokens", 1));
  }

  @Test
  void justUnderTheBudgetIsTokenizedAndJustOverIsRoutedByLoadAndServed() throws Exception {
    Map<?, ?> at =
        (Map<?, ?>)
            Json.parse(router.adminPost("/v1/admin/explain", completion(words(2000))).body());
    assertThat(at.get("tokenize_failure")).isNull();
    assertThat(((Number) at.get("prompt_tokens")).intValue()).isPositive();

    HttpResponse<String> overExplain =
        router.adminPost("/v1/admin/explain", completion(words(2001)));
    assertThat(overExplain.statusCode()).isEqualTo(200);
    Map<?, ?> over = (Map<?, ?>) Json.parse(overExplain.body());
    assertThat(over.get("tokenize_failure")).isEqualTo("too_long");
    assertThat(over.get("prompt_tokens")).isEqualTo(-1L);
    assertThat(over.get("request_blocks")).isEqualTo(0L);

    int seen = engine.seen().size();
    ready();
    HttpResponse<String> served = router.post("/v1/completions", completion(words(2001)));
    assertThat(served.statusCode()).isEqualTo(200);
    assertThat(engine.seen()).hasSize(seen + 1);
    assertThat(router.runtime.registry().scrape())
        .containsPattern("infera_tokenize_failures_total\\{reason=\"too_long\"[^}]*} [1-9]");
  }

  @Test
  void aBodyOverMaxBodyBytesIs413AndOneAtTheBudgetIsNot() throws Exception {
    String big = completion("x ".repeat(40_000));
    assertThat(big.length()).isGreaterThan(65536);
    HttpResponse<String> r = router.post("/v1/completions", big);
    assertThat(r.statusCode()).isEqualTo(413);
    assertThat(r.body()).contains("request_too_large");
    String fits = completion("x ".repeat(30_000));
    ready();
    assertThat(router.post("/v1/completions", fits).statusCode()).isEqualTo(200);
  }

  @Test
  void whenEveryAnalysisThreadAndQueueSlotIsTakenTheNextRequestGets429() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Object> hold = occupy(release);
    CompletableFuture<Object> queued = occupy(release);
    try {
      awaitTrue(() -> router.runtime.analysisBudget().inFlight() == 2);
      HttpResponse<String> r = router.post("/v1/completions", completion("hi"));
      assertThat(r.statusCode()).isEqualTo(429);
      assertThat(r.headers().firstValue("retry-after")).hasValue("1");
      Map<?, ?> err = (Map<?, ?>) ((Map<?, ?>) Json.parse(r.body())).get("error");
      assertThat(err.get("code")).isEqualTo("analysis_budget_full");
      assertThat(err.get("type")).isEqualTo("rate_limit_exceeded");
      assertThat((String) err.get("message")).contains("limits.analysisQueue=1");
      HttpResponse<String> e = router.adminPost("/v1/admin/explain", completion("hi"));
      assertThat(e.statusCode()).isEqualTo(429);
    } finally {
      release.countDown();
    }
    hold.get(10, TimeUnit.SECONDS);
    queued.get(10, TimeUnit.SECONDS);
    awaitTrue(() -> router.runtime.analysisBudget().inFlight() == 0);
    ready();
    assertThat(router.post("/v1/completions", completion("hi")).statusCode()).isEqualTo(200);
  }

  @Test
  void aClientThatLeavesWhileQueuedIsNeverTokenizedAndItsBudgetIsReleased() throws Exception {
    // Start from a routable worker, as the test before ends. A fresh-clone CI run (ci34) once
    // waited 20 s here for the request to queue; the cause is not pinned down, and this rules out
    // the one known source of a moment without a worker (a timed-out health check).
    ready();
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Object> hold = occupy(release);
    int seen = engine.seen().size();
    double abandoned = counter("infera.analysis.abandoned");
    double tokenized = router.runtime.registry().find("infera.tokenize").timer().count();
    try {
      awaitTrue(() -> router.runtime.analysisBudget().inFlight() == 1);
      byte[] body = completion(words(1500)).getBytes(StandardCharsets.UTF_8);
      try (Socket s = new Socket("127.0.0.1", router.port)) {
        OutputStream out = s.getOutputStream();
        out.write(
            ("POST /v1/completions HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
                    + "content-length: "
                    + body.length
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        awaitTrue(() -> router.runtime.analysisBudget().inFlight() == 2);
      }
      // the server notices the closed connection and ends the request while it is queued
      awaitTrue(
          () ->
              router
                      .runtime
                      .registry()
                      .find("infera.requests")
                      .tag("status", "client_closed")
                      .counter()
                  != null);
    } finally {
      release.countDown();
    }
    hold.get(10, TimeUnit.SECONDS);
    awaitTrue(() -> router.runtime.analysisBudget().inFlight() == 0);
    assertThat(router.runtime.analysisBudget().inFlightBytes()).isZero();
    assertThat(counter("infera.analysis.abandoned")).isEqualTo(abandoned + 1);
    assertThat(router.runtime.registry().find("infera.tokenize").timer().count())
        .isEqualTo((long) tokenized);
    assertThat(engine.seen()).hasSize(seen);
  }

  /**
   * Waits until the stub worker is routable: on a loaded machine the 200 ms health checks can time
   * out and take it out for a moment, which is not what these tests are about.
   */
  private static void ready() throws InterruptedException {
    awaitTrue(() -> router.runtime.notReadyReasons().isEmpty());
  }

  /** Holds one analysis slot (thread or queue place) until {@code release}. */
  private static CompletableFuture<Object> occupy(CountDownLatch release) {
    return router
        .runtime
        .analysisBudget()
        .submit(
            1,
            () -> false,
            () -> {
              try {
                release.await(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return "held";
            },
            null);
  }

  private static double counter(String name) {
    Counter c = router.runtime.registry().find(name).counter();
    return c == null ? 0 : c.count();
  }

  private static void awaitTrue(BooleanSupplier cond) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 20 s");
      }
      Thread.sleep(10);
    }
  }
}
