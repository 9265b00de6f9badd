package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.config.ConfigLoader;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Decode input demand over real HTTP on a disaggregated fleet of stub engines: the decode half goes
 * to the decode worker with the fewest in-flight input tokens, the reservation is released with the
 * request whichever way it ends, the prefill booking follows {@code policy.prefillGuardRelease},
 * and the metrics carry the documented names.
 */
class DecodeDemandIT {

  private static final String LONG =
      "{\"model\":\"Qwen/Qwen3-0.6B\",\"prompt\":\""
          + "word ".repeat(2000)
          + "\",\"max_tokens\":4,\"stream\":true}";
  private static final String SHORT =
      "{\"model\":\"Qwen/Qwen3-0.6B\",\"prompt\":\"hello there\",\"max_tokens\":4,\"stream\":true}";

  private Vertx vertx;
  private StubEngine prefill;
  private StubEngine d0;
  private StubEngine d1;
  private RouterHarness router;
  private final ExecutorService clients = Executors.newFixedThreadPool(3);

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    prefill = new StubEngine(vertx, "p0");
    d0 = new StubEngine(vertx, "d0");
    d1 = new StubEngine(vertx, "d1");
  }

  @AfterEach
  void tearDown() throws Exception {
    clients.shutdownNow();
    if (router != null) {
      router.close();
    }
    prefill.close();
    d0.close();
    d1.close();
    vertx.close();
  }

  private void start(String engine, String decodeEngine, String policy, String limits)
      throws Exception {
    String yaml =
        "model: Qwen/Qwen3-0.6B\npageSize: 16\ntokenizer: {path: 'builtin:qwen3'}\n"
            + "events: {transport: inproc, inprocBus: 'dd-"
            + System.nanoTime()
            + "'}\nlisten: {host: 127.0.0.1, port: 0}\n"
            + "policy: "
            + policy
            + "\nlimits: "
            + limits
            + "\ndiscovery:\n  healthIntervalMs: 200\n  workers:\n"
            + "    - {id: p0, url: '"
            + prefill.url()
            + "', role: prefill, engine: "
            + engine
            + "}\n    - {id: d0, url: '"
            + d0.url()
            + "', role: decode, engine: "
            + decodeEngine
            + "}\n    - {id: d1, url: '"
            + d1.url()
            + "', role: decode, engine: "
            + decodeEngine
            + "}\n";
    router = RouterHarness.start(vertx, ConfigLoader.parse(yaml), RouterHarness.testParts());
    await().atMost(Duration.ofSeconds(10)).until(() -> router.get("/ready").statusCode() == 200);
  }

  private CompletableFuture<HttpResponse<String>> postAsync(String body) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return router.post("/v1/completions", body);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        },
        clients);
  }

  private double metric(String series) throws Exception {
    Matcher m =
        Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$")
            .matcher(router.adminGet("/metrics").body());
    return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
  }

  /** Requests booked as decode demand on d0 and d1 (a target never reserved on counts 0). */
  private double demandRequests() throws Exception {
    double sum = 0;
    for (String t : new String[] {"d0", "d1"}) {
      double v = metric("infera_router_decode_demand_requests{target=\"" + t + "\"}");
      sum += Double.isNaN(v) ? 0 : v;
    }
    return sum;
  }

  private double decisions(String mode) throws Exception {
    Matcher m =
        Pattern.compile(
                "(?m)^infera_router_decode_demand_decisions_total\\{[^}]*mode=\""
                    + mode
                    + "\"[^}]*\\} (\\S+)$")
            .matcher(router.adminGet("/metrics").body());
    double sum = 0;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
    }
    return sum;
  }

  @Test
  void onSendsTheNextRequestToTheDecodeWorkerWithFewerInputTokensAndReleasesAtTheEnd()
      throws Exception {
    start("sglang", "sglang", "{decodeInputDemand: on}", "{}");
    d0.mode(StubEngine.Mode.SLOW_STREAM);
    d1.mode(StubEngine.Mode.SLOW_STREAM);
    CompletableFuture<HttpResponse<String>> big = postAsync(LONG);
    await().atMost(Duration.ofSeconds(10)).until(() -> d0.seen().size() + d1.seen().size() == 1);
    String bigOn = d0.seen().isEmpty() ? "d1" : "d0";
    String other = bigOn.equals("d0") ? "d1" : "d0";
    assertThat(metric("infera_router_decode_demand_tokens{target=\"" + bigOn + "\"}"))
        .isGreaterThan(1500);
    assertThat(metric("infera_router_decode_demand_requests{target=\"" + bigOn + "\"}"))
        .isEqualTo(1.0);
    HttpResponse<String> small = router.post("/v1/completions", SHORT);
    assertThat(small.statusCode()).isEqualTo(200);
    assertThat(small.headers().firstValue("x-infera-worker")).hasValue(other);
    assertThat(big.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                metric("infera_router_decode_demand_tokens{target=\"d0\"}") == 0
                    && metric("infera_router_decode_demand_tokens{target=\"d1\"}") == 0
                    && router.inFlight() == 0);
    assertThat(metric("infera_router_decode_demand_requests{target=\"" + other + "\"}")).isZero();
    assertThat(decisions("on")).isEqualTo(2.0);
  }

  @Test
  void guardReleaseDecodeHoldsThePrefillBookingUntilTheDecodeHalfFails() throws Exception {
    start(
        "sglang",
        "sglang",
        "{decodeInputDemand: shadow, prefillGuardRelease: decode}",
        "{firstByteTimeoutMs: 1500}");
    d0.mode(StubEngine.Mode.HANG);
    d1.mode(StubEngine.Mode.HANG);
    CompletableFuture<HttpResponse<String>> r = postAsync(SHORT);
    await().atMost(Duration.ofSeconds(5)).until(() -> prefill.seen().size() == 1);
    // The prefill answer has long completed; the decode half still waits: p0 stays booked.
    Thread.sleep(300);
    assertThat(metric("infera_worker_inflight{worker=\"p0\"}")).isEqualTo(1.0);
    assertThat(demandRequests()).isEqualTo(1.0);
    // The decode worker never answers: the failure releases both the booking and the demand.
    assertThat(r.get(30, TimeUnit.SECONDS).statusCode()).isGreaterThanOrEqualTo(500);
    await().atMost(Duration.ofSeconds(5)).until(() -> router.inFlight() == 0);
    assertThat(demandRequests()).isZero();
    assertThat(decisions("shadow")).isEqualTo(1.0);
  }

  @Test
  void guardReleaseCompletionReleasesThePrefillBookingWithItsAnswer() throws Exception {
    start(
        "sglang",
        "sglang",
        "{decodeInputDemand: on, prefillGuardRelease: completion}",
        "{firstByteTimeoutMs: 1500}");
    d0.mode(StubEngine.Mode.HANG);
    d1.mode(StubEngine.Mode.HANG);
    CompletableFuture<HttpResponse<String>> r = postAsync(SHORT);
    await().atMost(Duration.ofSeconds(5)).until(() -> prefill.seen().size() == 1);
    await()
        .atMost(Duration.ofSeconds(1))
        .until(() -> metric("infera_worker_inflight{worker=\"p0\"}") == 0);
    // The decode half is still booked.
    assertThat(router.inFlight()).isEqualTo(1);
    assertThat(r.get(30, TimeUnit.SECONDS).statusCode()).isGreaterThanOrEqualTo(500);
    await().atMost(Duration.ofSeconds(5)).until(() -> router.inFlight() == 0);
  }

  @Test
  void anAbandonedPairReleasesItsPrefillBookingAndItsReservation() throws Exception {
    start("vllm", "sglang", "{decodeInputDemand: on}", "{}");
    HttpResponse<String> r = router.post("/v1/completions", SHORT);
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(prefill.seen()).isEmpty();
    await().atMost(Duration.ofSeconds(5)).until(() -> router.inFlight() == 0);
    assertThat(demandRequests()).isZero();
  }
}
