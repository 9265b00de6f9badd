package io.infera.sim.bench;

import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.Discovery;
import io.infera.router.discovery.StaticDiscovery;
import io.infera.router.events.EventTransport;
import io.infera.router.http.RouterServer;
import io.infera.router.runtime.RouterRuntime;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.sim.engine.PortInUseException;
import io.vertx.core.Vertx;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The real router started in this JVM (its runtime and HTTP server) for the live bench and the
 * event-plane fault tests: static discovery, a given transport and the shared tokenizer.
 */
public record InJvmRouter(RouterRuntime runtime, RouterServer server, int port)
    implements AutoCloseable {

  /**
   * Starts the router on {@code cfg} and waits (30 s at most) until it is ready.
   *
   * @param transport the event transport, owned by the router from here on
   * @throws PortInUseException when {@code cfg}'s fixed listen port is taken
   */
  public static InJvmRouter start(Vertx vertx, RouterConfig cfg, EventTransport transport)
      throws Exception {
    RouterRuntime runtime =
        RouterRuntime.start(
            cfg,
            new RouterRuntime.Parts() {
              @Override
              public Discovery discovery(RouterConfig c) {
                return new StaticDiscovery(c.discovery().workers());
              }

              @Override
              public EventTransport transport(RouterConfig c) {
                return transport;
              }

              @Override
              public PromptTokenizer tokenizer(RouterConfig c) throws Exception {
                return BenchTokenizer.qwen3();
              }

              @Override
              public boolean ownsTokenizer() {
                return false;
              }
            });
    RouterServer server = new RouterServer(vertx, runtime);
    try {
      int port = listen(server, cfg.listen().port());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!runtime.notReadyReasons().isEmpty()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("router not ready: " + runtime.notReadyReasons());
        }
        Thread.sleep(20);
      }
      return new InJvmRouter(runtime, server, port);
    } catch (Exception e) {
      server.close();
      runtime.close();
      throw e;
    }
  }

  private static int listen(RouterServer server, int port) throws Exception {
    try {
      return server.start().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (port != 0 && PortInUseException.isAddressInUse(e)) {
        throw new PortInUseException(port, "router HTTP", e.getCause());
      }
      throw e;
    }
  }

  /** The router's base URL on loopback. */
  public String url() {
    return "http://127.0.0.1:" + port;
  }

  /** The router's admin base URL on loopback ({@code /metrics}, {@code /v1/admin/*}). */
  public String adminUrl() {
    return "http://127.0.0.1:" + server.adminPort();
  }

  @Override
  public void close() {
    server.close();
    runtime.close();
  }
}
