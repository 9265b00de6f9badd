package io.infera.operator.runtime;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * {@code GET /healthz} (liveness), {@code /readyz} (readiness) and {@code /metrics} (Prometheus
 * text) on one port. Two threads; every answer is computed from in-memory state.
 */
public final class ProbeServer implements AutoCloseable {

  private final HttpServer server;
  private final ExecutorService executor;

  private ProbeServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * @param port 0 picks a free port
   * @throws IOException if the port cannot be bound
   */
  public static ProbeServer start(
      String host,
      int port,
      BooleanSupplier healthy,
      BooleanSupplier ready,
      PrometheusMeterRegistry registry)
      throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
    server.createContext("/healthz", ex -> probe(ex, healthy));
    server.createContext("/readyz", ex -> probe(ex, ready));
    server.createContext(
        "/metrics",
        ex -> {
          if (!exact(ex, "/metrics")) {
            return;
          }
          send(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
        });
    server.createContext("/", ex -> send(ex, 404, "text/plain; charset=utf-8", "not found\n"));
    ExecutorService executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "probe-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.start();
    return new ProbeServer(server, executor);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void probe(HttpExchange ex, BooleanSupplier check) throws IOException {
    if (!exact(ex, ex.getHttpContext().getPath())) {
      return;
    }
    boolean ok;
    try {
      ok = check.getAsBoolean();
    } catch (RuntimeException e) {
      ok = false;
    }
    send(ex, ok ? 200 : 503, "text/plain; charset=utf-8", ok ? "ok\n" : "not ok\n");
  }

  /** Only GET/HEAD of exactly {@code path}; anything else is answered here. */
  private static boolean exact(HttpExchange ex, String path) throws IOException {
    if (!ex.getRequestURI().getPath().equals(path)) {
      send(ex, 404, "text/plain; charset=utf-8", "not found\n");
      return false;
    }
    String m = ex.getRequestMethod();
    if (!m.equals("GET") && !m.equals("HEAD")) {
      ex.getResponseHeaders().set("Allow", "GET, HEAD");
      send(ex, 405, "text/plain; charset=utf-8", "method not allowed\n");
      return false;
    }
    return true;
  }

  private static void send(HttpExchange ex, int code, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    boolean head = ex.getRequestMethod().equals("HEAD");
    ex.sendResponseHeaders(code, head ? -1 : bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      if (!head) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
