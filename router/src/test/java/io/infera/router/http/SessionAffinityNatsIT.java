package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.Discovery;
import io.infera.router.events.EventTransport;
import io.infera.router.json.Json;
import io.infera.router.runtime.DefaultParts;
import io.infera.router.runtime.RouterRuntime;
import io.infera.router.testing.NatsServer;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.TestTokenizers;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two router replicas with {@code events.transport: nats} and session affinity sharing one
 * session's binding through a real nats-server: a session bound on one replica is bound on the
 * other without that replica ever having seen it, and a replacement made on either reaches the
 * other.
 */
class SessionAffinityNatsIT {

  @TempDir Path dir;
  private Vertx vertx;
  private NatsServer server;
  private final StubEngine[] engines = new StubEngine[3];
  private RouterHarness r1;
  private RouterHarness r2;

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    for (int i = 0; i < engines.length; i++) {
      engines[i] = new StubEngine(vertx, "w" + i);
    }
    server = NatsServer.start(dir.resolve("nats"));
  }

  @AfterEach
  void tearDown() throws Exception {
    for (RouterHarness r : new RouterHarness[] {r1, r2}) {
      if (r != null) {
        r.close();
      }
    }
    server.close();
    for (StubEngine e : engines) {
      e.close();
    }
    vertx.close();
  }

  private String yaml() {
    StringBuilder sb =
        new StringBuilder(
            "model: m\npageSize: 16\ntokenizer: {path: 'builtin:qwen3'}\n"
                + "policy: {sessionAffinity: {mode: prefill}}\n"
                + "events:\n  transport: nats\n  nats: {url: '"
                + server.url()
                + "', stream: SA_IT, subjectPrefix: 'sa.kv.events', snapshotBucket: sa_it}\n"
                + "listen: {host: 127.0.0.1, port: 0}\n"
                + "admin: {host: 127.0.0.1, port: 0}\n"
                + "limits: {retries: 2}\n"
                + "discovery:\n  healthIntervalMs: 200\n  workers:\n");
    for (StubEngine e : engines) {
      sb.append("    - {id: ").append(e.name()).append(", url: '").append(e.url()).append("'}\n");
    }
    return sb.toString();
  }

  private static RouterRuntime.Parts parts() {
    DefaultParts production = new DefaultParts();
    return new RouterRuntime.Parts() {
      @Override
      public Discovery discovery(RouterConfig c) {
        return production.discovery(c);
      }

      @Override
      public EventTransport transport(RouterConfig c) {
        return production.transport(c);
      }

      @Override
      public PromptTokenizer tokenizer(RouterConfig c) {
        return TestTokenizers.qwen3();
      }

      @Override
      public boolean ownsTokenizer() {
        return false;
      }
    };
  }

  private static String chat(String text) {
    return "{\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
  }

  private static Map<?, ?> explain(RouterHarness r, String body, String session) throws Exception {
    return (Map<?, ?>)
        Json.parse(r.adminPost("/v1/admin/explain", body, "x-session-id", session).body());
  }

  private static Map<?, ?> sessionOf(Map<?, ?> explain) {
    return (Map<?, ?>) explain.get("session");
  }

  private static Map<?, ?> status(RouterHarness r) throws Exception {
    return (Map<?, ?>) Json.parse(r.adminGet("/v1/admin/status").body());
  }

  @Test
  void aSessionBoundOnOneReplicaIsBoundOnTheOtherAndReplacementsTravelToo() throws Exception {
    r1 = RouterHarness.start(vertx, ConfigLoader.parse(yaml()), parts());
    r2 = RouterHarness.start(vertx, ConfigLoader.parse(yaml()), parts());
    for (RouterHarness r : List.of(r1, r2)) {
      await().atMost(Duration.ofSeconds(30)).until(() -> r.get("/ready").statusCode() == 200);
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                r1.runtime.sharedLoad().stats().replicas() == 1
                    && r2.runtime.sharedLoad().stats().replicas() == 1);
    @SuppressWarnings("unchecked")
    Map<Object, Object> affinity = (Map<Object, Object>) status(r1).get("session_affinity");
    assertThat(affinity).containsEntry("mode", "prefill").containsEntry("shared", true);

    // Replica 2 has never seen the session.
    assertThat(sessionOf(explain(r2, chat("turn two, another text"), "conv-7")).get("verdict"))
        .isEqualTo("first");

    HttpResponse<String> first =
        r1.post("/v1/chat/completions", chat("turn one"), "x-session-id", "conv-7");
    assertThat(first.statusCode()).isEqualTo(200);
    String bound = first.headers().firstValue("x-infera-worker").orElseThrow();

    // Replica 2 learns the binding over NATS and routes the session's next turn there.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> "bound".equals(sessionOf(explain(r2, chat("x"), "conv-7")).get("verdict")));
    Map<?, ?> e2 = explain(r2, chat("turn two, another text"), "conv-7");
    assertThat(e2.get("picked")).isEqualTo(bound);
    for (int i = 0; i < 5; i++) {
      HttpResponse<String> r =
          r2.post(
              "/v1/chat/completions",
              chat("turn " + (i + 2) + " " + "x".repeat(i * 40)),
              "x-session-id",
              "conv-7");
      assertThat(r.headers().firstValue("x-infera-worker")).hasValue(bound);
    }
    assertThat(r2.runtime.scrape())
        .contains("infera_session_affinity_hits_total{side=\"prefill\"} 5.0")
        .contains("infera_load_sharing_bindings_applied_total");

    // The bound worker fails on replica 2: the retry replaces it, and replica 1 follows.
    StubEngine failing = engineNamed(bound);
    failing.mode(StubEngine.Mode.STATUS_500);
    HttpResponse<String> retried =
        r2.post("/v1/chat/completions", chat("turn eight"), "x-session-id", "conv-7");
    assertThat(retried.statusCode()).isEqualTo(200);
    String replacement = retried.headers().firstValue("x-infera-worker").orElseThrow();
    assertThat(replacement).isNotEqualTo(bound);
    failing.mode(StubEngine.Mode.OK);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> replacement.equals(explain(r1, chat("x"), "conv-7").get("picked")));
    assertThat(sessionOf(explain(r1, chat("x"), "conv-7")).get("verdict")).isEqualTo("bound");
    HttpResponse<String> back =
        r1.post("/v1/chat/completions", chat("turn nine"), "x-session-id", "conv-7");
    assertThat(back.headers().firstValue("x-infera-worker")).hasValue(replacement);
    assertThat(r2.runtime.scrape())
        .contains(
            "infera_session_affinity_replacements_total{reason=\"excluded\",side=\"prefill\"} 1.0");
    // Nothing either replica sent was refused or malformed.
    for (RouterHarness r : List.of(r1, r2)) {
      assertThat(r.runtime.sharedLoad().stats().malformed()).isZero();
      assertThat(r.runtime.sharedLoad().status().get("bindings_refused")).isEqualTo(0L);
    }
  }

  private StubEngine engineNamed(String name) {
    for (StubEngine e : engines) {
      if (e.name().equals(name)) {
        return e;
      }
    }
    throw new AssertionError(name);
  }
}
