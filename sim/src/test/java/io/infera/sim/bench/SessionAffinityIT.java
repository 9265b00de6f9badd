package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.PolicyName;
import io.infera.router.config.SessionAffinityConfig;
import io.infera.router.events.zmq.ZmqTransport;
import io.infera.router.json.Json;
import io.infera.sim.workload.Vocabulary;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Session affinity live: the real router (static discovery, ZMQ KV events, {@code
 * policy.sessionAffinity.mode: prefill}) in front of 4 simulated vLLM engines. Six sessions send
 * their turns in concurrent rounds, each turn an unrelated prompt (nothing for the cache to
 * follow), half naming the session in {@code x-session-id}, half in {@code prompt_cache_key}: every
 * session stays on one worker. Then a bound engine stops: its session's next turn is retried
 * elsewhere, the session is bound there, and stays.
 */
class SessionAffinityIT {

  static final FleetSpec FLEET = FleetSpec.of(4, 2048);
  private final Random random = new Random(16);
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @Test
  void everySessionStaysOnOneWorkerAndAStoppedWorkerIsReplaced() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (LiveStack stack = LiveStack.start(FLEET, 1, 1, null)) {
      InJvmRouter router =
          InJvmRouter.start(
              vertx,
              BenchRouterConfig.of(FLEET, FLEET.policy(PolicyName.KV_AWARE), stack.engines())
                  .withSessionAffinity(
                      SessionAffinityConfig.DEFAULTS.withMode(SessionAffinityConfig.Mode.PREFILL)),
              new ZmqTransport());
      try {
        int sessions = 6;
        int rounds = 4;
        Map<Integer, Set<String>> workers = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
          List<CompletableFuture<String>> turns = new ArrayList<>();
          for (int s = 0; s < sessions; s++) {
            int[] prompt = tokens(64 + random.nextInt(256));
            int session = s;
            turns.add(CompletableFuture.supplyAsync(() -> send(router, session, prompt)));
          }
          for (int s = 0; s < sessions; s++) {
            workers.computeIfAbsent(s, k -> new HashSet<>()).add(turns.get(s).get());
          }
        }
        System.out.println("SessionAffinityIT: session -> workers " + workers);
        for (Map.Entry<Integer, Set<String>> e : workers.entrySet()) {
          assertThat(e.getValue()).as("workers of session " + e.getKey()).hasSize(1);
        }
        String scrape = router.runtime().scrape();
        assertThat(scrape)
            .contains(
                "infera_session_affinity_hits_total{side=\"prefill\"} "
                    + (double) (sessions * (rounds - 1)))
            .contains("infera_session_affinity_misses_total{side=\"prefill\"} " + (double) sessions)
            .contains("infera_session_affinity_bindings " + (double) sessions);

        // Session 0's engine stops. A turn that reaches it fails (a retry, when limits.retries
        // allows one, or the next turn once the health check or the breaker takes it out, is
        // replaced); the session is then bound to another worker and stays there.
        String bound = workers.get(0).iterator().next();
        stack.engines().get(Integer.parseInt(bound.substring(1))).close();
        String moved = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (moved == null && System.nanoTime() < deadline) {
          moved = trySend(router, 0, tokens(128));
          if (moved == null) {
            Thread.sleep(200);
          }
        }
        assertThat(moved).as("a turn answered after the stop").isNotNull().isNotEqualTo(bound);
        for (int i = 0; i < 3; i++) {
          assertThat(send(router, 0, tokens(100))).isEqualTo(moved);
        }
        assertThat(router.runtime().scrape())
            .containsPattern(
                "infera_session_affinity_replacements_total\\{reason=\"(excluded|unhealthy|"
                    + "breaker_open)\",side=\"prefill\"} 1.0");
      } finally {
        router.close();
      }
    } finally {
      vertx.close();
    }
  }

  private int[] tokens(int n) {
    int[] t = new int[n];
    for (int i = 0; i < n; i++) {
      t[i] = Vocabulary.FIRST_ID + random.nextInt(Vocabulary.SIZE);
    }
    return t;
  }

  /** One turn of session {@code s} (even: header, odd: body); returns the worker that served it. */
  private String send(InJvmRouter router, int s, int[] prompt) {
    String w = trySend(router, s, prompt);
    assertThat(w).as("turn of session " + s + " answered").isNotNull();
    return w;
  }

  /** As {@link #send}; null when the router did not answer 200. */
  private String trySend(InJvmRouter router, int s, int[] prompt) {
    List<Integer> ids = new ArrayList<>(prompt.length);
    for (int t : prompt) {
      ids.add(t);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("model", BenchRouterConfig.MODEL);
    body.put("prompt", ids);
    body.put("max_tokens", 4);
    body.put("stream", true);
    if (s % 2 == 1) {
      body.put("prompt_cache_key", "conversation-" + s);
    }
    HttpRequest.Builder req =
        HttpRequest.newBuilder(URI.create(router.url() + "/v1/completions"))
            .timeout(Duration.ofSeconds(60))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(Json.write(body)));
    if (s % 2 == 0) {
      req.header("x-session-id", "conversation-" + s);
    }
    try {
      HttpResponse<String> resp = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
      return resp.statusCode() == 200
          ? resp.headers().firstValue("x-infera-worker").orElseThrow()
          : null;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
