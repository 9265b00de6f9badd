package io.infera.router.hub;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * A Hugging Face hub stand-in on a loopback port: {@code /ORG/NAME/resolve/REV/FILE} answered by a
 * per-path script, every request recorded with its Authorization header.
 */
public final class FakeHub implements AutoCloseable {

  /** What one request saw. */
  public record Seen(String path, String rawPath, String authorization) {}

  /** How to answer one path. */
  interface Answer {
    void answer(HttpExchange ex) throws IOException;
  }

  private final HttpServer server;
  private final Map<String, Answer> answers = new ConcurrentHashMap<>();
  public final List<Seen> seen = new CopyOnWriteArrayList<>();

  public FakeHub() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext(
        "/",
        ex -> {
          seen.add(
              new Seen(
                  ex.getRequestURI().getPath(),
                  ex.getRequestURI().getRawPath(),
                  ex.getRequestHeaders().getFirst("Authorization")));
          Answer a = answers.get(ex.getRequestURI().getRawPath());
          try {
            if (a == null) {
              send(ex, 404, Map.of("X-Error-Message", "Entry not found"), new byte[0]);
            } else {
              a.answer(ex);
            }
          } catch (IOException e) {
            // the client hung up (a test that stops reading); nothing to answer
          } finally {
            ex.close();
          }
        });
    server.start();
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** The same server under another host name: another origin for the token. */
  URI otherOrigin() {
    return URI.create("http://localhost:" + server.getAddress().getPort());
  }

  void on(String rawPath, Answer a) {
    answers.put(rawPath, a);
  }

  /** {@code file} of {@code model} at {@code rev}: 200 with the body and the commit header. */
  public void file(String model, String rev, String file, byte[] body, String commit) {
    on(
        "/" + model + "/resolve/" + rev + "/" + file,
        ex -> send(ex, 200, commit == null ? Map.of() : Map.of("X-Repo-Commit", commit), body));
  }

  static void send(HttpExchange ex, int status, Map<String, String> headers, byte[] body)
      throws IOException {
    headers.forEach((k, v) -> ex.getResponseHeaders().add(k, v));
    ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
