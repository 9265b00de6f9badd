package io.infera.router.relay;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.infera.router.events.zmq.ZmqSourceStatus;
import io.infera.router.json.Json;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * The relay sidecar's small HTTP side: {@code GET /health} (200 while the publishing thread runs,
 * with the relay's state as JSON; for a liveness probe — deliberately no readiness endpoint, since
 * a relay waiting for NATS must not take its engine out of the Service) and {@code GET /metrics}
 * (Prometheus text: the relay's counters). One thread; the handlers only read counters.
 */
public final class RelayHttp implements AutoCloseable {

  private final HttpServer server;
  private final Relay relay;

  private RelayHttp(HttpServer server, Relay relay) {
    this.server = server;
    this.relay = relay;
  }

  /**
   * Serves on {@code host:port} (0 picks a free port).
   *
   * @throws IOException when the port cannot be bound
   */
  public static RelayHttp start(Relay relay, String host, int port) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
    RelayHttp http = new RelayHttp(server, relay);
    server.createContext("/health", http::health);
    server.createContext("/metrics", http::metrics);
    server.createContext("/", ex -> send(ex, 404, "text/plain", "not found\n"));
    server.setExecutor(
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "infera-relay-http");
              t.setDaemon(true);
              return t;
            }));
    server.start();
    return http;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private void health(HttpExchange ex) throws IOException {
    boolean alive = relay.alive();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", alive ? "ok" : "stopped");
    body.put("worker_id", relay.options().workerId().value());
    body.put("ready", relay.ready());
    body.put("nats_connected", relay.natsConnected());
    RelayStats s = relay.stats();
    body.put("published", s.published());
    body.put("buffered", s.buffered());
    body.put("resyncs", s.resyncs());
    send(ex, alive ? 200 : 503, "application/json", Json.write(body) + "\n");
  }

  private void metrics(HttpExchange ex) throws IOException {
    send(ex, 200, "text/plain; version=0.0.4; charset=utf-8", prometheus(relay));
  }

  /**
   * The relay's counters in the Prometheus text format, through the same Micrometer registry type
   * as the router's {@code /metrics}.
   */
  static String prometheus(Relay relay) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RelayStats s = relay.stats();
    counter(registry, "received", "engine batches received live", s.received());
    counter(registry, "replayed", "engine batches recovered from the replay socket", s.replayed());
    counter(registry, "duplicates.skipped", "engine batches received twice", s.duplicatesSkipped());
    counter(
        registry, "resume.skipped", "batches already in the stream at start", s.resumeSkipped());
    counter(registry, "engine.restarts", "engine sequences that went down", s.engineRestarts());
    counter(registry, "malformed", "engine messages of an unknown shape", s.malformed());
    counter(registry, "published", "batches published to JetStream", s.published());
    counter(registry, "republished", "batches published again after a failure", s.republished());
    counter(registry, "acked", "batches acknowledged by JetStream", s.acked());
    counter(registry, "publish.failures", "failed or timed-out publishes", s.publishFailures());
    counter(registry, "folded", "batches folded into the view instead of stored", s.folded());
    counter(registry, "overflows", "times the buffer overflowed", s.overflows());
    counter(registry, "resyncs", "resync markers stored", s.resyncs());
    counter(registry, "order.violations", "batches acknowledged out of order", s.orderViolations());
    counter(registry, "snapshots.written", "view snapshots written", s.snapshotsWritten());
    counter(registry, "snapshot.failures", "snapshot writes that failed", s.snapshotFailures());
    counter(registry, "decode.errors", "payloads that did not decode", s.decodeErrors());
    counter(registry, "nats.reconnects", "NATS reconnects", s.natsReconnects());
    counter(registry, "zmq.missed", "engine batches lost to a gap no replay filled", s.zmqMissed());
    counter(
        registry,
        "zmq.replay.timeouts",
        "replay requests with no complete answer in time",
        s.zmqReplayTimeouts());
    counter(
        registry,
        "zmq.replay.malformed",
        "replay requests abandoned at a malformed answer",
        s.zmqReplayMalformed());
    counter(registry, "stream.resets", "times the stream was found recreated", s.streamResets());
    gauge(registry, "buffered", "batches waiting to be published", s.buffered());
    gauge(
        registry,
        "buffered.bytes",
        "payload bytes received and not yet acknowledged",
        s.bufferedBytes());
    gauge(registry, "in.flight", "batches published and not yet acknowledged", s.inFlight());
    gauge(registry, "ready", "1 once recovered and subscribed", relay.ready() ? 1 : 0);
    gauge(registry, "nats.connected", "1 while connected to NATS", relay.natsConnected() ? 1 : 0);
    for (ZmqSourceStatus src : relay.zmqSources()) {
      long seq = Math.max(-1, src.lastSeq());
      Gauge.builder("infera.relay.engine.seq", () -> seq)
          .description("last engine sequence seen per rank")
          .tag("rank", Integer.toString(src.rank()))
          .register(registry);
    }
    return registry.scrape();
  }

  private static void counter(
      PrometheusMeterRegistry registry, String name, String help, long value) {
    FunctionCounter.builder("infera.relay." + name, value, v -> v)
        .description(help)
        .register(registry);
  }

  private static void gauge(PrometheusMeterRegistry registry, String name, String help, long v) {
    Gauge.builder("infera.relay." + name, () -> v).description(help).register(registry);
  }

  private static void send(HttpExchange ex, int code, String type, String body) throws IOException {
    try (ex) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("content-type", type);
      if ("HEAD".equals(ex.getRequestMethod())) {
        ex.sendResponseHeaders(code, -1);
        return;
      }
      ex.sendResponseHeaders(code, bytes.length);
      try (OutputStream os = ex.getResponseBody()) {
        os.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
