package io.infera.operator.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.infera.operator.testing.FakeRouters;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The client never throws and never waits much longer than its timeout. */
class RouterStatusClientTest {

  private static final Duration TIMEOUT = Duration.ofMillis(400);

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  @Test
  void aWellFormedAnswerIsKnown() throws Exception {
    int port = http(200, FakeRouters.status(2, 10, 0.1, 0.5, false));
    RouterFetch f = client(port).fetch("demo", "ns", 8000);
    assertThat(f).isEqualTo(new RouterFetch.Known(new RouterView(true, 2, 10, 0.1, 0.5, 2, 0)));
  }

  @Test
  void theTemplateIsExpanded() {
    RouterStatusClient c =
        new RouterStatusClient(RouterStatusClient.DEFAULT_URL_TEMPLATE, Duration.ofSeconds(1));
    assertThat(c.url("demo", "llm", 8000).toString())
        .isEqualTo("http://demo-router.llm.svc:8000/v1/admin/status");
  }

  @Test
  void anErrorCodeIsUnknownNamingIt() throws Exception {
    int port = http(503, "{\"error\":{}}");
    assertThat(client(port).fetch("demo", "ns", 8000))
        .isEqualTo(new RouterFetch.Unknown("GET /ns/demo/v1/admin/status answered HTTP 503"));
  }

  @Test
  void aMalformedAnswerIsUnknown() throws Exception {
    int port = http(200, "<html>not json</html>");
    RouterFetch f = client(port).fetch("demo", "ns", 8000);
    assertThat(f).isInstanceOf(RouterFetch.Unknown.class);
    assertThat(((RouterFetch.Unknown) f).reason()).startsWith("malformed router status: not JSON");
  }

  @Test
  void theAdminTokenIsSentAsABearerAndNoneWithoutOne() throws Exception {
    java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
    s.createContext(
        "/",
        ex -> {
          String auth = ex.getRequestHeaders().getFirst("Authorization");
          seen.add(String.valueOf(auth));
          boolean ok = "Bearer s3cret".equals(auth);
          byte[] b = (ok ? "{\"workers\":[]}" : "unauthorized").getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(ok ? 200 : 401, b.length);
          try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
          }
        });
    s.start();
    try {
      int port = s.getAddress().getPort();
      assertThat(client(port).fetch("demo", "ns", 8081, "s3cret\n"))
          .isInstanceOf(RouterFetch.Known.class);
      assertThat(client(port).fetch("demo", "ns", 8081, null))
          .isEqualTo(new RouterFetch.Unknown("GET /ns/demo/v1/admin/status answered HTTP 401"));
      assertThat(client(port).fetch("demo", "ns", 8081, " "))
          .isEqualTo(new RouterFetch.Unknown("GET /ns/demo/v1/admin/status answered HTTP 401"));
      assertThat(seen).containsExactly("Bearer s3cret", "null", "null");
    } finally {
      s.stop(0);
    }
  }

  @Test
  void aTooLargeAnswerIsUnknown() throws Exception {
    String huge =
        "{\"workers\":[],\"pad\":\"" + "x".repeat(RouterStatusClient.MAX_BODY_BYTES) + "\"}";
    int port = http(200, huge);
    assertThat(client(port).fetch("demo", "ns", 8000))
        .isEqualTo(
            new RouterFetch.Unknown(
                "router status larger than " + RouterStatusClient.MAX_BODY_BYTES + " bytes"));
  }

  @Test
  void aTooLargeChunkedAnswerIsUnknownOnceItPassesTheLimit() throws Exception {
    // No content-length: the limit is found while reading (a timeout the busy suite cannot hit).
    String huge =
        "{\"workers\":[],\"pad\":\"" + "x".repeat(RouterStatusClient.MAX_BODY_BYTES) + "\"}";
    int port = http(200, huge, true);
    RouterStatusClient slowOk =
        new RouterStatusClient(
            "http://127.0.0.1:" + port + "/{namespace}/{name}/v1/admin/status",
            Duration.ofSeconds(30));
    assertThat(slowOk.fetch("demo", "ns", 8000))
        .isEqualTo(
            new RouterFetch.Unknown(
                "router status larger than " + RouterStatusClient.MAX_BODY_BYTES + " bytes"));
  }

  @Test
  void aServerThatNeverAnswersTimesOut() throws Exception {
    int port = silent(null);
    assertTimesOut(port);
  }

  @Test
  void aBodyThatStallsHalfwayTimesOut() throws Exception {
    int port =
        silent(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
                + "{\"workers\":[");
    assertTimesOut(port);
  }

  @Test
  void aClosedPortIsUnreachable() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    RouterFetch f = client(port).fetch("demo", "ns", 8000);
    assertThat(f).isInstanceOf(RouterFetch.Unknown.class);
    assertThat(((RouterFetch.Unknown) f).reason()).startsWith("router status unreachable: ");
  }

  @Test
  void badTemplatesAreRefusedUpFront() {
    for (String t :
        List.of("not a url", "ftp://x/{name}", "/relative/{name}", "http://", "http://{name} x")) {
      assertThatThrownBy(() -> new RouterStatusClient(t, TIMEOUT))
          .as(t)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(t);
    }
    assertThatThrownBy(
            () -> new RouterStatusClient(RouterStatusClient.DEFAULT_URL_TEMPLATE, Duration.ZERO))
        .hasMessageContaining("must be positive");
  }

  private void assertTimesOut(int port) {
    long t0 = System.nanoTime();
    RouterFetch f = client(port).fetch("demo", "ns", 8000);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertThat(f).isEqualTo(new RouterFetch.Unknown("router status timed out after 400 ms"));
    assertThat(ms).isBetween(300L, 3000L);
  }

  private RouterStatusClient client(int port) {
    return new RouterStatusClient(
        "http://127.0.0.1:" + port + "/{namespace}/{name}/v1/admin/status", TIMEOUT);
  }

  private int http(int code, String body) throws IOException {
    return http(code, body, false);
  }

  private int http(int code, String body, boolean chunked) throws IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
    s.createContext(
        "/",
        ex -> {
          byte[] b = body.getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(code, chunked ? 0 : b.length);
          try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
          } catch (IOException e) {
            // the client gave up (too large): fine
          }
        });
    s.start();
    open.add(() -> s.stop(0));
    return s.getAddress().getPort();
  }

  /** Accepts connections, optionally writes {@code prefix}, then says nothing more. */
  private int silent(String prefix) throws IOException {
    ServerSocket server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
    List<Socket> clients = new ArrayList<>();
    Thread t =
        new Thread(
            () -> {
              try {
                while (true) {
                  Socket c = server.accept();
                  clients.add(c);
                  if (prefix != null) {
                    c.getOutputStream().write(prefix.getBytes(StandardCharsets.UTF_8));
                    c.getOutputStream().flush();
                  }
                }
              } catch (IOException e) {
                // closed
              }
            });
    t.setDaemon(true);
    t.start();
    open.add(
        () -> {
          server.close();
          for (Socket c : clients) {
            c.close();
          }
        });
    return server.getLocalPort();
  }
}
