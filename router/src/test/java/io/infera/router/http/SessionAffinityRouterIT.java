package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.json.Json;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Session affinity through the router's HTTP front (inproc transport: bindings per replica): the
 * configured header and {@code prompt_cache_key} bind, explain and status show it, unusable keys
 * are counted and never fail a request, and the session's header and field reach the engine
 * unchanged.
 */
class SessionAffinityRouterIT {

  private Vertx vertx;
  private List<StubEngine> engines;
  private RouterHarness router;

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    engines =
        List.of(new StubEngine(vertx, "a"), new StubEngine(vertx, "b"), new StubEngine(vertx, "c"));
    router =
        RouterHarness.start(
            vertx,
            engines,
            "policy: {sessionAffinity: {mode: both, header: X-Conversation, maxKeyBytes: 32}}\n");
    await().atMost(Duration.ofSeconds(20)).until(() -> router.get("/ready").statusCode() == 200);
  }

  @AfterEach
  void tearDown() throws Exception {
    router.close();
    for (StubEngine e : engines) {
      e.close();
    }
    vertx.close();
  }

  private static String chat(String text, String cacheKeyJson) {
    return "{\"messages\":[{\"role\":\"user\",\"content\":\""
        + text
        + "\"}]"
        + (cacheKeyJson == null ? "" : ",\"prompt_cache_key\":" + cacheKeyJson)
        + "}";
  }

  /**
   * Posts once the router is ready: on a loaded machine a health probe may time out and take every
   * stub out for a moment (a request refused then would still count its session key).
   */
  private HttpResponse<String> post(String body, String... headers) throws Exception {
    await().atMost(Duration.ofSeconds(20)).until(() -> router.get("/ready").statusCode() == 200);
    return router.post("/v1/chat/completions", body, headers);
  }

  private String worker(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r.headers().firstValue("x-infera-worker").orElseThrow();
  }

  @Test
  void theHeaderAndTheBodyKeyBindAndExplainAndStatusShowIt() throws Exception {
    Map<?, ?> before =
        (Map<?, ?>)
            Json.parse(
                router
                    .adminPost("/v1/admin/explain", chat("hello", null), "x-conversation", "c1")
                    .body());
    assertThat(((Map<?, ?>) before.get("session")).get("verdict")).isEqualTo("first");

    Set<String> byHeader = new HashSet<>();
    Set<String> byBody = new HashSet<>();
    for (int i = 0; i < 6; i++) {
      byHeader.add(
          worker(
              post(
                  chat("turn " + i + " " + "word ".repeat(i * 30), null), "X-Conversation", "c1")));
      byBody.add(worker(post(chat("other " + i + " " + "text ".repeat(i * 30), "\"c2\""))));
    }
    assertThat(byHeader).hasSize(1);
    assertThat(byBody).hasSize(1);

    Map<?, ?> after =
        (Map<?, ?>)
            Json.parse(
                router
                    .adminPost("/v1/admin/explain", chat("hello", null), "x-conversation", "c1")
                    .body());
    assertThat(after.get("picked")).isEqualTo(byHeader.iterator().next());
    assertThat(((Map<?, ?>) after.get("session")).get("bound")).isEqualTo(true);

    Map<?, ?> status = (Map<?, ?>) Json.parse(router.adminGet("/v1/admin/status").body());
    Map<?, ?> sa = (Map<?, ?>) status.get("session_affinity");
    assertThat(sa.get("mode")).isEqualTo("both");
    assertThat(sa.get("header")).isEqualTo("x-conversation");
    assertThat(sa.get("bindings")).isEqualTo(2L);
    assertThat(sa.get("shared")).isEqualTo(false); // inproc: per replica

    // The engine still sees the client's header and body field.
    List<StubEngine.Seen> seen = engines.stream().flatMap(e -> e.seen().stream()).toList();
    assertThat(seen).anyMatch(x -> x.body().contains("\"prompt_cache_key\":\"c2\""));
    assertThat(seen).anyMatch(x -> "c1".equals(x.headers().get("x-conversation")));
    String scrape = router.runtime.scrape();
    assertThat(scrape)
        .contains("infera_session_affinity_hits_total{side=\"prefill\"} 10.0")
        .contains("infera_session_affinity_misses_total{side=\"prefill\"} 2.0")
        .contains("infera_session_affinity_keys_total{result=\"found\"} 12.0");
  }

  @Test
  void unusableKeysAreCountedAndTheRequestsServedAsWithoutASession() throws Exception {
    worker(post(chat("a", "42")));
    worker(post(chat("a", "{\"nested\":[1,2]}")));
    worker(post(chat("a", "\"\"")));
    worker(post(chat("a", null), "x-conversation", "k".repeat(33)));
    worker(post(chat("a", "\"" + "é".repeat(17) + "\"")));
    worker(post(chat("a", "null")));
    String scrape = router.runtime.scrape();
    assertThat(scrape)
        .contains("infera_session_affinity_keys_total{result=\"not_string\"} 2.0")
        .contains("infera_session_affinity_keys_total{result=\"empty\"} 1.0")
        .contains("infera_session_affinity_keys_total{result=\"too_long\"} 2.0")
        .contains("infera_session_affinity_bindings 0.0");
  }
}
