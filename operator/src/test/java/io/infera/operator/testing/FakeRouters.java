package io.infera.operator.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Stands in for every InferaDeployment's router Service: {@code GET
 * /<namespace>/<name>/v1/admin/status} answers what a test set for that deployment (404 if
 * nothing), on a free loopback port. Counts the requests per deployment.
 */
public final class FakeRouters implements AutoCloseable {

  /** A canned answer. */
  public record Answer(int code, String body) {}

  private final HttpServer server;
  private final Map<String, Answer> answers = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> hits = new ConcurrentHashMap<>();

  public FakeRouters() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.createContext(
        "/",
        ex -> {
          String path = ex.getRequestURI().getPath();
          String[] parts = path.split("/");
          String key = parts.length > 2 ? parts[1] + "/" + parts[2] : "";
          hits.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
          Answer a = answers.getOrDefault(key, new Answer(404, "{}"));
          byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(a.code(), body.length);
          try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
          }
        });
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.start();
  }

  /** The operator's {@code --router-status-url} for this fake. */
  public String urlTemplate() {
    return "http://127.0.0.1:"
        + server.getAddress().getPort()
        + "/{namespace}/{name}/v1/admin/status";
  }

  public void answer(String namespace, String name, int code, String body) {
    answers.put(namespace + "/" + name, new Answer(code, body));
  }

  public int hits(String namespace, String name) {
    AtomicInteger n = hits.get(namespace + "/" + name);
    return n == null ? 0 : n.get();
  }

  /** A router status document as the router writes it (fields the operator reads, and others). */
  public static String status(
      int workers, long entries, double lag, Double hitRatio, boolean degraded) {
    StringBuilder w = new StringBuilder();
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < workers; i++) {
      if (i > 0) {
        w.append(',');
        s.append(',');
      }
      w.append("{\"id\":\"w").append(i).append("\",\"healthy\":true,\"indexed_blocks\":1}");
      s.append("{\"worker_id\":\"w")
          .append(i)
          .append("\",\"dp_rank\":0,\"block_count\":")
          .append(entries / Math.max(1, workers))
          .append(",\"last_seq\":7,\"degraded\":")
          .append(degraded && i == 0)
          .append(",\"batches\":3,\"event_lag_seconds\":")
          .append(lag)
          .append('}');
    }
    return "{\"ready\":true,\"not_ready_reasons\":[],\"model\":\"m\",\"page_size\":16,"
        + "\"workers\":["
        + w
        + "],\"sources\":["
        + s
        + "],\"index\":{\"entries\":"
        + entries
        + ",\"degraded_sources\":0},\"hit_ratio\":"
        + (hitRatio == null ? "null" : hitRatio.toString())
        + ",\"tokenizer\":{\"mode\":\"local\"}}";
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
