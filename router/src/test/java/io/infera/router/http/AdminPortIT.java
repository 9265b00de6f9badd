package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.Discovery;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.events.EventSink;
import io.infera.router.events.EventTransport;
import io.infera.router.events.TransportStatus;
import io.infera.router.json.Json;
import io.infera.router.runtime.RouterRuntime;
import io.infera.router.tokenize.PromptTokenizer;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Least exposure (docs/operations.md, "Admin port"): the public port serves only the OpenAI API,
 * health and readiness; the admin port the rest, behind an optional bearer token; explain and the
 * cache-hit header can be turned off; {@code /v1/admin/status} never shows credentials; headers
 * crossing the proxy lose their hop-by-hop and internal members both ways.
 */
class AdminPortIT {

  static Vertx vertx;
  static StubEngine engine;

  @TempDir static Path dir;

  @BeforeAll
  static void engines() throws Exception {
    vertx = Vertx.vertx();
    engine = new StubEngine(vertx, "w0");
  }

  @AfterAll
  static void close() throws Exception {
    engine.close();
    vertx.close();
  }

  private static RouterHarness router(String extra) throws Exception {
    RouterHarness r = RouterHarness.start(vertx, List.of(engine), extra);
    await().atMost(Duration.ofSeconds(10)).until(() -> r.get("/ready").statusCode() == 200);
    return r;
  }

  private static final String CHAT = "{\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";

  @Test
  void adminPathsAreOnlyOnTheAdminPort() throws Exception {
    try (RouterHarness r = router(null)) {
      assertThat(r.adminPort).isPositive().isNotEqualTo(r.port);
      for (String path :
          List.of("/metrics", "/v1/workers", "/v1/admin/status", "/v1/admin/cache-view/w0")) {
        HttpResponse<String> pub = r.get(path);
        assertThat(pub.statusCode()).as(path + " on the public port").isEqualTo(404);
        assertThat(pub.body()).contains("no route").doesNotContain("infera_").doesNotContain("url");
        assertThat(r.adminGet(path).statusCode()).as(path + " on the admin port").isEqualTo(200);
      }
      assertThat(r.post("/v1/admin/explain", CHAT).statusCode()).isEqualTo(404);
      assertThat(r.adminPost("/v1/admin/explain", CHAT).statusCode()).isEqualTo(200);
      // The public port keeps the API, health and readiness; the admin port has none of them.
      assertThat(r.get("/v1/models").statusCode()).isEqualTo(200);
      assertThat(r.get("/health").statusCode()).isEqualTo(200);
      assertThat(r.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
      assertThat(r.adminPost("/v1/chat/completions", CHAT).statusCode()).isEqualTo(404);
      assertThat(r.adminGet("/v1/models").statusCode()).isEqualTo(404);
    }
  }

  private static HttpResponse<String> adminGet(RouterHarness r, String path, String auth)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(r.adminUrl(path))).timeout(Duration.ofSeconds(10));
    if (auth != null) {
      b.header("Authorization", auth);
    }
    return r.http.send(b.GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theAdminTokenIsRequiredWhenConfigured() throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "s3cret-admin-token\n");
    try (RouterHarness r = router("admin: {tokenFile: '" + token + "'}\n")) {
      for (String path : List.of("/metrics", "/v1/admin/status", "/v1/workers")) {
        HttpResponse<String> none = adminGet(r, path, null);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("www-authenticate"))
            .hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
        assertThat(none.body()).contains("\"code\":\"invalid_token\"");
        for (String wrong :
            List.of(
                "Bearer s3cret-admin-toke",
                "Bearer s3cret-admin-token2",
                "Basic czNjcmV0LWFkbWluLXRva2Vu",
                "Bearer",
                "s3cret-admin-token",
                "Bearer " + "x".repeat(10_000))) {
          assertThat(adminGet(r, path, wrong).statusCode()).as(wrong).isEqualTo(401);
        }
        assertThat(adminGet(r, path, "Bearer s3cret-admin-token").statusCode()).isEqualTo(200);
        assertThat(adminGet(r, path, "bearer s3cret-admin-token").statusCode()).isEqualTo(200);
      }
      // The public port needs no token.
      assertThat(r.get("/ready").statusCode()).isEqualTo(200);
      // The token is never in the status.
      String status = adminGet(r, "/v1/admin/status", "Bearer s3cret-admin-token").body();
      assertThat(status).doesNotContain("s3cret");
    }
  }

  @Test
  void aMissingOrEmptyTokenFileStopsTheStartNamingTheKey() throws Exception {
    Path empty = Files.writeString(dir.resolve("empty"), " \n");
    for (Path file : List.of(dir.resolve("absent"), empty)) {
      var cfg =
          ConfigLoader.parse(
              RouterHarness.yaml(List.of(engine), "admin: {tokenFile: '" + file + "'}\n"));
      try (var rt = RouterRuntime.start(cfg, RouterHarness.testParts())) {
        assertThatThrownBy(() -> new RouterServer(vertx, rt))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("admin.tokenFile " + file);
      }
    }
  }

  @Test
  void anAdminPortInUseIsNamedAndThePublicPortIsReleased() throws Exception {
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      var cfg =
          ConfigLoader.parse(
              RouterHarness.yaml(
                  List.of(engine), "admin: {host: 127.0.0.1, port: " + port + "}\n"));
      try (var rt = RouterRuntime.start(cfg, RouterHarness.testParts())) {
        RouterServer server = new RouterServer(vertx, rt);
        assertThatThrownBy(() -> server.startAndWait(Duration.ofSeconds(10)))
            .hasMessage("port " + port + " on 127.0.0.1 (admin, admin.port) is already in use");
        server.close();
      }
    }
  }

  @Test
  void explainAndTheCacheHitHeaderCanBeTurnedOff() throws Exception {
    try (RouterHarness on = router(null)) {
      HttpResponse<String> a = on.post("/v1/chat/completions", CHAT);
      assertThat(a.headers().firstValue("x-infera-cache-hit-blocks")).isPresent();
    }
    try (RouterHarness off = router("admin: {explain: false, cacheHitHeader: false}\n")) {
      HttpResponse<String> a = off.post("/v1/chat/completions", CHAT);
      assertThat(a.statusCode()).isEqualTo(200);
      assertThat(a.headers().firstValue("x-infera-cache-hit-blocks")).isEmpty();
      assertThat(off.adminPost("/v1/admin/explain", CHAT).statusCode()).isEqualTo(404);
      assertThat(off.adminGet("/v1/admin/status").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void theStatusNeverShowsCredentials() throws Exception {
    // A worker URL with user info, as someone might write it for an authenticating proxy.
    StubEngine secret = new StubEngine(vertx, "s0");
    String url = secret.url().replace("http://", "http://admin:hunter2@");
    String yaml = RouterHarness.yaml(List.of(), "") + "    - {id: s0, url: '" + url + "'}\n";
    RouterRuntime.Parts base = RouterHarness.testParts();
    // A transport that reports a URL with credentials, an error quoting it, and a token.
    RouterRuntime.Parts parts =
        new RouterRuntime.Parts() {
          @Override
          public Discovery discovery(RouterConfig c) {
            return base.discovery(c);
          }

          @Override
          public EventTransport transport(RouterConfig c) {
            EventTransport inner = base.transport(c);
            return new EventTransport() {
              @Override
              public void start(EventSink sink) {
                inner.start(sink);
              }

              @Override
              public void workersChanged(List<WorkerInfo> workers) {
                inner.workersChanged(workers);
              }

              @Override
              public boolean warm() {
                return inner.warm();
              }

              @Override
              public String name() {
                return "leaky";
              }

              @Override
              public TransportStatus status() {
                Map<String, Object> fields = new LinkedHashMap<>();
                fields.put("url", "nats://relay:pa55word@nats.example:4222");
                fields.put("last_error", "connect to tls://u:pa55word@nats.example failed");
                fields.put("auth_token", "tok-pa55word");
                fields.put("credentials_file", "/var/run/secrets/infera/nats.creds");
                return new TransportStatus("leaky", true, null, fields, null);
              }

              @Override
              public void close() {
                inner.close();
              }
            };
          }

          @Override
          public PromptTokenizer tokenizer(RouterConfig c) throws Exception {
            return base.tokenizer(c);
          }

          @Override
          public boolean ownsTokenizer() {
            return false;
          }
        };
    try (RouterHarness r = RouterHarness.start(vertx, ConfigLoader.parse(yaml), parts)) {
      String status = r.adminGet("/v1/admin/status").body();
      String workers = r.adminGet("/v1/workers").body();
      for (String doc : List.of(status, workers)) {
        assertThat(doc).contains("s0").doesNotContain("hunter2").doesNotContain("admin:");
        assertThat(doc).contains("http://***@127.0.0.1");
      }
      assertThat(status)
          .doesNotContain("pa55word")
          .contains("nats://***@nats.example:4222")
          .contains("/var/run/secrets/infera/nats.creds");
      Map<?, ?> leaky = (Map<?, ?>) ((Map<?, ?>) Json.parse(status)).get("leaky");
      assertThat(leaky.get("auth_token")).isEqualTo("<redacted>");
    } finally {
      secret.close();
    }
  }

  @Test
  void hopByHopAndInternalHeadersDoNotCrossTheProxyEitherWay() throws Exception {
    // An engine that answers with hop-by-hop, Connection-listed and router-namespace headers.
    HttpServer forging =
        vertx
            .createHttpServer()
            .requestHandler(
                req -> {
                  if (req.path().equals("/health")) {
                    req.response().end();
                    return;
                  }
                  req.body()
                      .onSuccess(
                          b ->
                              req.response()
                                  .putHeader("content-type", "application/json")
                                  .putHeader("connection", "x-engine-private, keep-alive")
                                  .putHeader("x-engine-private", "leak")
                                  .putHeader("keep-alive", "timeout=5")
                                  .putHeader("proxy-authenticate", "Basic")
                                  .putHeader("x-infera-worker", "forged")
                                  .putHeader("x-infera-cache-hit-blocks", "999")
                                  .putHeader("x-engine-public", "kept")
                                  .end(StubEngine.chatJson("forging")));
                });
    int port =
        forging.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get().actualPort();
    try {
      String yaml =
          RouterHarness.yaml(List.of(), "")
              + "    - {id: w0, url: '"
              + engine.url()
              + "', dpSize: 2}\n"
              + "    - {id: z0, url: 'http://127.0.0.1:"
              + port
              + "', dpSize: 2}\n";
      try (RouterHarness r =
          RouterHarness.start(vertx, ConfigLoader.parse(yaml), RouterHarness.testParts())) {
        await().atMost(Duration.ofSeconds(10)).until(() -> r.get("/ready").statusCode() == 200);
        // Client → engine: the stub (w0 sorts before z0) gets it: two idle workers, equal costs.
        int before = engine.seen().size();
        String toStub = null;
        for (int i = 0; i < 20 && engine.seen().size() == before; i++) {
          // A raw socket: java.net.http refuses to send a Connection header.
          try (java.net.Socket sock =
              new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), r.port)) {
            sock.setSoTimeout(10_000);
            String req =
                "POST /v1/chat/completions HTTP/1.1\r\nHost: a\r\n"
                    + "Content-Type: application/json\r\n"
                    + "X-Data-Parallel-Rank: 7\r\n"
                    + "x-infera-worker: client-forged\r\n"
                    + "X-Client-Private: hop\r\n"
                    + "Connection: keep-alive, X-Client-Private\r\n"
                    + "X-Client-Public: e2e\r\n"
                    + "Content-Length: "
                    + CHAT.length()
                    + "\r\n\r\n"
                    + CHAT;
            sock.getOutputStream().write(req.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            byte[] head = new byte[12];
            int n = sock.getInputStream().readNBytes(head, 0, 12);
            toStub = new String(head, 0, n, java.nio.charset.StandardCharsets.US_ASCII);
          }
        }
        assertThat(engine.seen().size()).as("a request reached the stub").isGreaterThan(before);
        Map<String, String> seen = engine.seen().get(engine.seen().size() - 1).headers();
        assertThat(seen).containsEntry("x-client-public", "e2e");
        assertThat(seen).doesNotContainKeys("x-client-private", "x-infera-worker", "connection");
        // The rank is the router's pick (0 or 1), never the client's 7.
        assertThat(seen.get("x-data-parallel-rank")).isIn("0", "1");
        assertThat(toStub).startsWith("HTTP/1.1 200");
        // Engine → client: the stub fails before its first byte, so the retry reaches the
        // forging engine (an idle fleet's equal costs would otherwise keep the stub).
        HttpResponse<String> fromForging = null;
        engine.mode(StubEngine.Mode.STATUS_500);
        try {
          for (int i = 0; i < 20; i++) {
            HttpResponse<String> a = r.post("/v1/chat/completions", CHAT);
            if (a.headers().firstValue("x-infera-worker").orElse("").equals("z0")) {
              fromForging = a;
              break;
            }
          }
        } finally {
          engine.mode(StubEngine.Mode.OK);
        }
        assertThat(fromForging).as("the forging engine answered once").isNotNull();
        var h = fromForging.headers();
        assertThat(h.firstValue("x-engine-public")).hasValue("kept");
        assertThat(h.firstValue("x-engine-private")).isEmpty();
        assertThat(h.firstValue("keep-alive")).isEmpty();
        assertThat(h.firstValue("proxy-authenticate")).isEmpty();
        assertThat(h.allValues("x-infera-worker")).containsExactly("z0");
        assertThat(h.allValues("x-infera-cache-hit-blocks")).doesNotContain("999").hasSize(1);
        String metrics = r.adminGet("/metrics").body();
        assertThat(metrics).containsPattern("infera_http_internal_headers_dropped_total [1-9]");
      }
    } finally {
      forging.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }
  }
}
