package io.infera.router.http;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.IgnoredKeys;
import io.infera.router.config.RouterConfig;
import io.infera.router.config.Strictness;
import io.infera.router.discovery.Discovery;
import io.infera.router.discovery.StaticDiscovery;
import io.infera.router.events.EventTransport;
import io.infera.router.events.inproc.InprocBus;
import io.infera.router.events.inproc.InprocTransport;
import io.infera.router.runtime.RouterRuntime;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.TestTokenizers;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A router on a free port in front of stub engines, with the inproc event bus. */
public final class RouterHarness implements AutoCloseable {

  public final Vertx vertx;
  public final RouterRuntime runtime;
  public final RouterServer server;
  public final int port;
  public final int adminPort;
  public final InprocBus bus;
  public final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .version(HttpClient.Version.HTTP_1_1)
          .build();

  private RouterHarness(
      Vertx vertx, RouterConfig cfg, RouterRuntime.Parts parts, IgnoredKeys ignored)
      throws Exception {
    this.vertx = vertx;
    this.bus = InprocBus.named(cfg.events().inprocBus());
    this.runtime = RouterRuntime.start(cfg, parts, ignored);
    this.server = new RouterServer(vertx, runtime);
    this.port = server.start().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    this.adminPort = server.adminPort();
  }

  /** YAML for a static fleet of {@code engines} (extra YAML lines appended at top level). */
  public static String yaml(List<StubEngine> engines, String extra) {
    StringBuilder sb = new StringBuilder();
    sb.append("model: Qwen/Qwen3-0.6B\n")
        .append("loraAdapters: [sql-lora]\n")
        .append("pageSize: 16\n")
        .append("tokenizer: {path: 'builtin:qwen3'}\n")
        .append("events: {transport: inproc, inprocBus: 'test-")
        .append(System.nanoTime())
        .append("'}\n")
        .append("listen: {host: 127.0.0.1, port: 0}\n")
        .append("discovery:\n  backend: static\n  healthIntervalMs: 200\n  workers:\n");
    for (StubEngine e : engines) {
      sb.append("    - {id: ").append(e.name()).append(", url: '").append(e.url()).append("'}\n");
    }
    return sb.append(extra == null ? "" : extra).toString();
  }

  public static RouterHarness start(Vertx vertx, List<StubEngine> engines, String extraYaml)
      throws Exception {
    RouterConfig cfg = ConfigLoader.parse(yaml(engines, extraYaml));
    return new RouterHarness(vertx, cfg, testParts(), IgnoredKeys.NONE);
  }

  /** As {@code infera-router serve} loads a file: keys it does not know are ignored. */
  public static RouterHarness startLenient(Vertx vertx, List<StubEngine> engines, String extraYaml)
      throws Exception {
    ConfigLoader.Loaded l = ConfigLoader.parse(yaml(engines, extraYaml), Strictness.LENIENT);
    return new RouterHarness(vertx, l.config(), testParts(), l.ignored());
  }

  public static RouterHarness start(Vertx vertx, RouterConfig cfg, RouterRuntime.Parts parts)
      throws Exception {
    return new RouterHarness(vertx, cfg, parts, IgnoredKeys.NONE);
  }

  /** Static discovery, inproc events, the shared Qwen3 tokenizer. */
  public static RouterRuntime.Parts testParts() {
    return new RouterRuntime.Parts() {
      @Override
      public Discovery discovery(RouterConfig config) {
        return new StaticDiscovery(config.discovery().workers());
      }

      @Override
      public EventTransport transport(RouterConfig config) {
        return new InprocTransport(InprocBus.named(config.events().inprocBus()));
      }

      @Override
      public PromptTokenizer tokenizer(RouterConfig config) {
        return config.tokenizer().mode() == RouterConfig.TokenizerMode.ENGINE
            ? null
            : TestTokenizers.qwen3();
      }

      @Override
      public boolean ownsTokenizer() {
        return false;
      }
    };
  }

  public String url(String path) {
    return "http://127.0.0.1:" + port + path;
  }

  /** A URL on the admin port ({@code /metrics}, {@code /v1/workers}, {@code /v1/admin/*}). */
  public String adminUrl(String path) {
    return "http://127.0.0.1:" + adminPort + path;
  }

  public HttpResponse<String> post(String path, String body, String... headers) throws Exception {
    return postTo(url(path), body, headers);
  }

  /** {@link #post} on the admin port. */
  public HttpResponse<String> adminPost(String path, String body, String... headers)
      throws Exception {
    return postTo(adminUrl(path), body, headers);
  }

  /** {@link #get} on the admin port. */
  public HttpResponse<String> adminGet(String path) throws Exception {
    return getFrom(adminUrl(path));
  }

  private HttpResponse<String> postTo(String url, String body, String... headers) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(30))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  public HttpResponse<String> get(String path) throws Exception {
    return getFrom(url(path));
  }

  private HttpResponse<String> getFrom(String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Sum of in-flight bookings over all workers (must return to 0 after every request). */
  public long inFlight() {
    return runtime.fleet().members().stream()
        .mapToLong(m -> runtime.load().load(m.info().id()).inFlight())
        .sum();
  }

  public long activeBlocks() {
    return runtime.fleet().members().stream()
        .mapToLong(m -> runtime.load().load(m.info().id()).activeBlocks())
        .sum();
  }

  @Override
  public void close() {
    server.close();
    runtime.close();
  }
}
