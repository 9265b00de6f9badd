package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vertx.core.Vertx;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The HTTP server's own limits on real loopback sockets (docs/operations.md, "HTTP server limits"):
 * each timeout at and past its limit (a slowloris header, a slow body, idle connections), the
 * connection cap and one more, the in-flight cap and one more, the header and request-line limits.
 */
class ServerLimitsIT {

  static Vertx vertx;
  static StubEngine engine;

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

  private static RouterHarness router(String limits) throws Exception {
    RouterHarness r = RouterHarness.start(vertx, List.of(engine), "limits: {" + limits + "}\n");
    await().atMost(Duration.ofSeconds(10)).until(() -> r.get("/ready").statusCode() == 200);
    return r;
  }

  private static Socket connect(int port) throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
    s.setSoTimeout(10_000);
    s.setTcpNoDelay(true);
    return s;
  }

  private static void send(Socket s, String text) throws IOException {
    OutputStream out = s.getOutputStream();
    out.write(text.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** Reads until the server closes; returns what it sent (the close is the assertion). */
  private static String readToClose(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    try {
      for (int n; (n = in.read(buf)) >= 0; ) {
        got.write(buf, 0, n);
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the server kept the connection open; it sent: " + got, e);
    } catch (IOException reset) {
      // a reset is a close too
    }
    return got.toString(StandardCharsets.US_ASCII);
  }

  /** Reads one response head and its content-length body. */
  private static String readResponse(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed after: " + head);
      }
      head.append((char) b);
    }
    String h = head.toString().toLowerCase();
    int at = h.indexOf("content-length:");
    int len = at < 0 ? 0 : Integer.parseInt(h.substring(at + 15, h.indexOf('\r', at)).trim());
    byte[] body = in.readNBytes(len);
    return head + new String(body, StandardCharsets.UTF_8);
  }

  private static double metric(RouterHarness r, String sample) throws Exception {
    for (String line : r.adminGet("/metrics").body().split("\n")) {
      if (line.startsWith(sample + " ")) {
        return Double.parseDouble(line.substring(sample.length() + 1));
      }
    }
    return Double.NaN;
  }

  @Test
  void aHeaderTrickledPastTheHeaderTimeoutIsCutAndOneJustInsideIsServed() throws Exception {
    try (RouterHarness r = router("headerTimeoutMs: 700, idleTimeoutMs: 30000")) {
      // Inside the limit: the head takes about 300 ms in pieces.
      try (Socket s = connect(r.port)) {
        send(s, "GET /health HTTP/1.1\r\n");
        for (int i = 0; i < 3; i++) {
          Thread.sleep(100);
          send(s, "X-Slow-" + i + ": x\r\n");
        }
        send(s, "Host: a\r\n\r\n");
        assertThat(readResponse(s)).startsWith("HTTP/1.1 200");
      }
      // Past it: a byte every 100 ms for ever. The idle timeout (30 s) would not cut this.
      try (Socket s = connect(r.port)) {
        long start = System.nanoTime();
        send(s, "GET /health HTTP/1.1\r\n");
        Thread trickle =
            new Thread(
                () -> {
                  try {
                    for (int i = 0; i < 100; i++) {
                      Thread.sleep(100);
                      send(s, "X-" + i + ": y\r\n");
                    }
                  } catch (Exception closed) {
                    // the server cut us: expected
                  }
                });
        trickle.start();
        readToClose(s);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(ms).isBetween(600L, 5000L);
        trickle.join(5000);
      }
      assertThat(metric(r, "infera_http_timeouts_total{listener=\"public\",phase=\"head\"}"))
          .isEqualTo(1.0);
    }
  }

  @Test
  void aBodySentPastTheBodyTimeoutIsCutAndOneJustInsideIsServed() throws Exception {
    try (RouterHarness r = router("bodyTimeoutMs: 700, idleTimeoutMs: 30000")) {
      String body = "{\"prompt\":\"hello there\"}";
      String head =
          "POST /v1/completions HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
              + "Content-Length: "
              + body.length()
              + "\r\n\r\n";
      try (Socket s = connect(r.port)) {
        send(s, head);
        Thread.sleep(300);
        send(s, body);
        assertThat(readResponse(s)).startsWith("HTTP/1.1 200");
      }
      try (Socket s = connect(r.port)) {
        long start = System.nanoTime();
        send(s, head);
        send(s, body.substring(0, 5));
        Thread trickle =
            new Thread(
                () -> {
                  try {
                    for (int i = 5; i < body.length() - 1; i++) {
                      Thread.sleep(200);
                      send(s, body.substring(i, i + 1));
                    }
                  } catch (Exception closed) {
                    // cut: expected
                  }
                });
        trickle.start();
        readToClose(s);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(ms).isBetween(600L, 4000L);
        trickle.join(5000);
      }
      assertThat(metric(r, "infera_http_timeouts_total{listener=\"public\",phase=\"body\"}"))
          .isEqualTo(1.0);
      await().atMost(Duration.ofSeconds(5)).until(() -> r.inFlight() == 0);
    }
  }

  @Test
  void idleConnectionsAreClosedAfterTheIdleTimeoutAndABusyOneIsNot() throws Exception {
    try (RouterHarness r = router("idleTimeoutMs: 800, headerTimeoutMs: 5000")) {
      List<Socket> idle = new ArrayList<>();
      try {
        for (int i = 0; i < 300; i++) {
          idle.add(connect(r.port));
        }
        // A keep-alive connection used inside the limit stays usable.
        Socket kept = connect(r.port);
        idle.add(kept);
        for (int i = 0; i < 3; i++) {
          Thread.sleep(400);
          send(kept, "GET /health HTTP/1.1\r\nHost: a\r\n\r\n");
          assertThat(readResponse(kept)).startsWith("HTTP/1.1 200");
        }
        // Other clients are served while 300 connections sit idle.
        assertThat(r.get("/health").statusCode()).isEqualTo(200);
        long start = System.nanoTime();
        for (Socket s : idle) {
          readToClose(s);
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(6000);
        assertThat(metric(r, "infera_http_timeouts_total{listener=\"public\",phase=\"idle\"}"))
            .isGreaterThanOrEqualTo(301.0);
      } finally {
        for (Socket s : idle) {
          s.close();
        }
      }
      // A streamed answer slower than the idle timeout is not cut: only idle connections are.
      engine.mode(StubEngine.Mode.SLOW_STREAM);
      try {
        HttpResponse<String> slow =
            r.post(
                "/v1/chat/completions",
                "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(slow.statusCode()).isEqualTo(200);
        assertThat(slow.body()).contains("[DONE]");
      } finally {
        engine.mode(StubEngine.Mode.OK);
      }
    }
  }

  @Test
  void theConnectionCapClosesOneMoreAtOnceAndCountsIt() throws Exception {
    try (RouterHarness r = router("maxConnections: 5, idleTimeoutMs: 30000")) {
      List<Socket> held = new ArrayList<>();
      // The harness's own client may hold a pooled connection already.
      int before = (int) metric(r, "infera_http_connections{listener=\"public\"}");
      try {
        for (int i = before; i < 5; i++) {
          Socket s = connect(r.port);
          send(s, "GET /health HTTP/1.1\r\nHost: a\r\n\r\n");
          assertThat(readResponse(s)).startsWith("HTTP/1.1 200");
          held.add(s);
        }
        assertThat(metric(r, "infera_http_connections{listener=\"public\"}")).isEqualTo(5.0);
        try (Socket extra = connect(r.port)) {
          long start = System.nanoTime();
          try {
            send(extra, "GET /health HTTP/1.1\r\nHost: a\r\n\r\n");
          } catch (IOException closedAlready) {
            // fine: refused
          }
          assertThat(readToClose(extra)).isEmpty();
          assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2000);
        }
        assertThat(metric(r, "infera_http_connections_refused_total{listener=\"public\"}"))
            .isEqualTo(1.0);
        // The admin port has a cap of its own: it still answers.
        assertThat(r.adminGet("/v1/admin/status").statusCode()).isEqualTo(200);
        held.remove(held.size() - 1).close();
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> metric(r, "infera_http_connections{listener=\"public\"}") == 4.0);
        try (Socket again = connect(r.port)) {
          send(again, "GET /health HTTP/1.1\r\nHost: a\r\n\r\n");
          assertThat(readResponse(again)).startsWith("HTTP/1.1 200");
        }
      } finally {
        for (Socket s : held) {
          s.close();
        }
      }
    }
  }

  @Test
  void theInFlightCapRefusesOneMoreWith503AndRetryAfter() throws Exception {
    engine.mode(StubEngine.Mode.SLOW_STREAM);
    try (RouterHarness r = router("maxInFlight: 2")) {
      String chat = "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
      List<CompletableFuture<HttpResponse<String>>> running = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        running.add(
            r.http.sendAsync(
                HttpRequest.newBuilder(URI.create(r.url("/v1/chat/completions")))
                    .header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(chat))
                    .build(),
                HttpResponse.BodyHandlers.ofString()));
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> r.inFlight() == 2);
      HttpResponse<String> refused = r.post("/v1/chat/completions", chat);
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.headers().firstValue("retry-after")).hasValue("1");
      assertThat(refused.body()).contains("\"code\":\"overloaded\"");
      // Health and readiness are never counted: probes pass while the router is full.
      assertThat(r.get("/health").statusCode()).isEqualTo(200);
      assertThat(r.get("/ready").statusCode()).isEqualTo(200);
      assertThat(metric(r, "infera_http_in_flight")).isEqualTo(2.0);
      assertThat(metric(r, "infera_http_in_flight_refused_total")).isEqualTo(1.0);
      for (var f : running) {
        assertThat(f.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> metric(r, "infera_http_in_flight") == 0);
      engine.mode(StubEngine.Mode.OK);
      assertThat(r.post("/v1/chat/completions", chat).statusCode()).isEqualTo(200);
    } finally {
      engine.mode(StubEngine.Mode.OK);
    }
  }

  @Test
  void aClientLeavingMidStreamFreesItsInFlightSlot() throws Exception {
    engine.mode(StubEngine.Mode.SLOW_STREAM);
    try (RouterHarness r = router("maxInFlight: 1")) {
      String body = "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
      try (Socket s = connect(r.port)) {
        send(
            s,
            "POST /v1/chat/completions HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
                + "Content-Length: "
                + body.length()
                + "\r\n\r\n"
                + body);
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> metric(r, "infera_http_in_flight") == 1.0);
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> metric(r, "infera_http_in_flight") == 0);
    } finally {
      engine.mode(StubEngine.Mode.OK);
    }
  }

  @Test
  void headerCountHeaderBytesAndRequestLineHaveLimits() throws Exception {
    try (RouterHarness r = router("idleTimeoutMs: 30000")) {
      for (int count :
          new int[] {RouterServer.MAX_HEADER_COUNT, RouterServer.MAX_HEADER_COUNT + 1}) {
        try (Socket s = connect(r.port)) {
          StringBuilder req = new StringBuilder("GET /health HTTP/1.1\r\nHost: a\r\n");
          for (int i = 1; i < count; i++) {
            req.append("X-H").append(i).append(": v\r\n");
          }
          send(s, req.append("\r\n").toString());
          assertThat(readResponse(s))
              .startsWith(count <= RouterServer.MAX_HEADER_COUNT ? "HTTP/1.1 200" : "HTTP/1.1 431");
        }
      }
      try (Socket s = connect(r.port)) {
        send(
            s,
            "GET /health HTTP/1.1\r\nHost: a\r\nX-Big: "
                + "b".repeat(RouterServer.MAX_HEADER_BYTES)
                + "\r\n\r\n");
        assertThat(readToClose(s)).containsPattern("^HTTP/1\\.[01] 431");
      }
      try (Socket s = connect(r.port)) {
        send(s, "GET /health?" + "q".repeat(RouterServer.MAX_INITIAL_LINE) + " HTTP/1.1\r\n\r\n");
        assertThat(readToClose(s)).containsPattern("^HTTP/1\\.[01] 414");
      }
      try (Socket s = connect(r.port)) {
        // Just inside: a long query string is still a request.
        send(
            s,
            "GET /health?"
                + "q".repeat(RouterServer.MAX_INITIAL_LINE - 64)
                + " HTTP/1.1\r\nHost: a\r\n\r\n");
        assertThat(readResponse(s)).startsWith("HTTP/1.1 200");
      }
    }
  }
}
