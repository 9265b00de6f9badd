package io.infera.router.http;

import io.infera.router.json.Json;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A fake OpenAI-compatible engine on a free loopback port, for router tests: answers normally (JSON
 * or SSE), or misbehaves on demand (refuse, 5xx, hang, break after the first bytes).
 */
public final class StubEngine implements AutoCloseable {

  /** What the next requests get. */
  public enum Mode {
    OK,
    STATUS_500,
    STATUS_503,
    STATUS_429,
    CLOSE_BEFORE_RESPONSE,
    HANG,
    BREAK_AFTER_FIRST_BYTES,
    SLOW_STREAM
  }

  /** One request the engine saw. */
  public record Seen(String path, Map<String, String> headers, String body) {}

  /**
   * A scripted answer.
   *
   * @param chunks the body, sent chunked when there are several (else with a content-length)
   */
  public record Canned(int status, List<String> chunks) {
    public static Canned json(int status, String body) {
      return new Canned(status, List.of(body));
    }
  }

  private final Vertx vertx;
  private final HttpServer server;
  private final String name;
  private final AtomicReference<Mode> mode = new AtomicReference<>(Mode.OK);
  private volatile java.util.function.Function<Seen, Canned> script = s -> null;
  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private final AtomicInteger cancelled = new AtomicInteger();
  private volatile boolean healthy = true;
  private final int port;

  public StubEngine(Vertx vertx, String name) throws Exception {
    this.vertx = vertx;
    this.name = name;
    this.server = vertx.createHttpServer().requestHandler(this::handle);
    this.port =
        server
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS)
            .actualPort();
  }

  public String url() {
    return "http://127.0.0.1:" + port;
  }

  public String name() {
    return name;
  }

  public void mode(Mode m) {
    mode.set(m);
  }

  /** Answers the requests {@code f} has an answer for (null: as the mode says). */
  public void script(java.util.function.Function<Seen, Canned> f) {
    script = f;
  }

  public void healthy(boolean h) {
    healthy = h;
  }

  public List<Seen> seen() {
    return seen;
  }

  /** Requests whose connection the client closed before the answer ended. */
  public int cancelled() {
    return cancelled.get();
  }

  /** The exact SSE bytes a streaming answer consists of. */
  public static String sse(String name) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 3; i++) {
      sb.append("data: {\"id\":\"cmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,")
          .append("\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"")
          .append(name)
          .append("-")
          .append(i)
          .append("\"},\"finish_reason\":null}]}\n\n");
    }
    return sb.append("data: [DONE]\n\n").toString();
  }

  /** The exact JSON a non-streaming chat answer is. */
  public static String chatJson(String name) {
    return "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"hello from "
        + name
        + "\"},\"finish_reason\":\"stop\"}],"
        + "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3,\"total_tokens\":8}}";
  }

  private void handle(HttpServerRequest req) {
    if (req.path().equals("/health")) {
      req.response().setStatusCode(healthy ? 200 : 503).end();
      return;
    }
    String id = req.getHeader("x-request-id");
    if (req.path().equals("/tokenize")
        && id != null
        && id.startsWith(RenderParityProber.REQUEST_ID_PREFIX)) {
      // The stub's /tokenize is a canned answer, not a renderer: to render-parity probes it has
      // none (parity unknown, the router keeps its own tokens), and they stay out of the log that
      // tests assert on. RenderParityIT (sim module) probes real simulated engines.
      req.response().setStatusCode(404).end("{\"detail\":\"Not Found\"}");
      return;
    }
    req.body()
        .onSuccess(
            body -> {
              Map<String, String> headers = new java.util.HashMap<>();
              req.headers().forEach(h -> headers.put(h.getKey().toLowerCase(), h.getValue()));
              Seen s = new Seen(req.path(), headers, body.toString());
              seen.add(s);
              Canned c = script.apply(s);
              if (c != null) {
                canned(req.response(), c);
              } else {
                respond(req, body.toString());
              }
            });
  }

  private static void canned(HttpServerResponse resp, Canned c) {
    resp.setStatusCode(c.status()).putHeader("content-type", "application/json");
    if (c.chunks().size() == 1) {
      resp.end(c.chunks().get(0));
      return;
    }
    resp.setChunked(true);
    for (String chunk : c.chunks()) {
      if (resp.closed()) {
        return;
      }
      resp.write(chunk);
    }
    if (!resp.closed()) {
      resp.end();
    }
  }

  private void respond(HttpServerRequest req, String body) {
    HttpServerResponse resp = req.response();
    boolean stream = body.contains("\"stream\":true") || body.contains("\"stream\": true");
    resp.closeHandler(
        v -> {
          if (!resp.ended()) {
            cancelled.incrementAndGet();
          }
        });
    switch (mode.get()) {
      case STATUS_500 -> resp.setStatusCode(500).end("{\"error\":\"boom\"}");
      case STATUS_503 -> resp.setStatusCode(503).end("{\"error\":\"overloaded\"}");
      case STATUS_429 ->
          resp.setStatusCode(429)
              .putHeader("content-type", "application/json")
              .end("{\"error\":{\"message\":\"slow down\"}}");
      case CLOSE_BEFORE_RESPONSE -> req.connection().close();
      case HANG -> {
        // never answer
      }
      case BREAK_AFTER_FIRST_BYTES -> {
        resp.setChunked(true)
            .putHeader("content-type", stream ? "text/event-stream" : "application/json");
        resp.write(stream ? sse(name).substring(0, 40) : "{\"id\":\"chat");
        vertx.setTimer(30, t -> req.connection().close());
      }
      case SLOW_STREAM -> {
        resp.setChunked(true).putHeader("content-type", "text/event-stream");
        long[] n = {0};
        vertx.setPeriodic(
            50,
            id -> {
              if (resp.closed() || resp.ended()) {
                vertx.cancelTimer(id);
                return;
              }
              if (n[0]++ < 40) {
                resp.write("data: {\"n\":" + n[0] + "}\n\n");
              } else {
                vertx.cancelTimer(id);
                resp.end("data: [DONE]\n\n");
              }
            });
      }
      case OK -> {
        if (req.path().equals("/tokenize")) {
          resp.putHeader("content-type", "application/json")
              .end(
                  Json.write(
                      Map.of(
                          "count",
                          40,
                          "max_model_len",
                          4096,
                          "tokens",
                          java.util.stream.IntStream.range(100, 140).boxed().toList())));
        } else if (body.contains("\"do_remote_decode\":true")) {
          // vLLM's prefill half of a disaggregated request: where the KV blocks wait.
          resp.putHeader("content-type", "application/json")
              .end(
                  Json.write(
                      Map.of(
                          "id",
                          "cmpl-" + name,
                          "choices",
                          List.of(Map.of("index", 0, "text", "x", "finish_reason", "length")),
                          "kv_transfer_params",
                          Map.of(
                              "do_remote_prefill",
                              true,
                              "do_remote_decode",
                              false,
                              "remote_engine_id",
                              "engine-" + name,
                              "remote_block_ids",
                              List.of(1, 2, 3),
                              "remote_host",
                              "127.0.0.1",
                              "remote_port",
                              5600))));
        } else if (stream) {
          resp.setChunked(true).putHeader("content-type", "text/event-stream");
          String s = sse(name);
          int cut = s.length() / 2;
          resp.write(s.substring(0, cut));
          vertx.setTimer(5, t -> resp.end(s.substring(cut)));
        } else {
          resp.putHeader("content-type", "application/json").end(chatJson(name));
        }
      }
    }
  }

  @Override
  public void close() throws Exception {
    server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
