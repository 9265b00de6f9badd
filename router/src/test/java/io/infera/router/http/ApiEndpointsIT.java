package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.json.Json;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Anthropic Messages, OpenAI Responses and pass-through endpoints through the real router to
 * stub engines: each reaches the engine at its own path with the client's body unchanged and its
 * answer (SSE too) comes back byte for byte; failures are in the endpoint's error shape,
 * Anthropic's for {@code /v1/messages}; unknown paths stay 404.
 */
class ApiEndpointsIT {

  static Vertx vertx;
  static StubEngine w0;
  static StubEngine w1;
  static RouterHarness router;

  static final String MESSAGES =
      "{\"model\":\"Qwen/Qwen3-0.6B\",\"max_tokens\":16,\"system\":\"Be terse.\","
          + "\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Say hello.\"}]}]}";

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    w0 = new StubEngine(vertx, "w0");
    w1 = new StubEngine(vertx, "w1");
    router =
        RouterHarness.start(
            vertx, List.of(w0, w1), "limits: {maxBodyBytes: 4096, firstByteTimeoutMs: 1500}\n");
    await().atMost(Duration.ofSeconds(10)).until(() -> router.get("/ready").statusCode() == 200);
  }

  @AfterEach
  void reset() {
    w0.mode(StubEngine.Mode.OK);
    w1.mode(StubEngine.Mode.OK);
    await().atMost(Duration.ofSeconds(5)).until(() -> router.inFlight() == 0);
  }

  @AfterAll
  static void stop() throws Exception {
    router.close();
    w0.close();
    w1.close();
    vertx.close();
  }

  private static StubEngine.Seen lastSeen() {
    List<StubEngine.Seen> all = new java.util.ArrayList<>(w0.seen());
    all.addAll(w1.seen());
    return all.stream().filter(s -> !s.path().equals("/health")).reduce((a, b) -> b).orElseThrow();
  }

  private static int seenAt(String path) {
    return (int)
        (w0.seen().stream().filter(s -> s.path().equals(path)).count()
            + w1.seen().stream().filter(s -> s.path().equals(path)).count());
  }

  @ParameterizedTest
  @ValueSource(strings = {"/v1/embeddings", "/tokenize", "/detokenize", "/v1/responses"})
  void passThroughReachesTheEngineAtItsPathWithTheBodyUnchanged(String path) throws Exception {
    String body =
        path.equals("/v1/responses")
            ? "{\"model\":\"Qwen/Qwen3-0.6B\",\"input\":\"hi\",  \"store\":false}"
            : "{\"model\":\"Qwen/Qwen3-0.6B\",\"input\":\"hi\",\"prompt\":\"x\",\"tokens\":[1, 2]}";
    int before = seenAt(path);
    HttpResponse<String> r = router.post(path, body, "content-type", "application/json");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-infera-worker")).isPresent();
    assertThat(seenAt(path)).isEqualTo(before + 1);
    assertThat(lastSeen().body()).isEqualTo(body);
  }

  @Test
  void passThroughIsSpreadByLoad() throws Exception {
    // Two concurrent /v1/embeddings requests the engines sit on: the second goes where the
    // first is not (its pick's charge is on the first worker until the answer begins).
    w0.mode(StubEngine.Mode.HANG);
    w1.mode(StubEngine.Mode.HANG);
    int before0 = seenAt(w0, "/v1/embeddings");
    int before1 = seenAt(w1, "/v1/embeddings");
    var http = java.net.http.HttpClient.newHttpClient();
    var req =
        java.net.http.HttpRequest.newBuilder(java.net.URI.create(router.url("/v1/embeddings")))
            .header("content-type", "application/json")
            .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"input\":\"a\"}"))
            .build();
    var a = http.sendAsync(req, HttpResponse.BodyHandlers.ofString());
    await().atMost(Duration.ofSeconds(1)).until(() -> router.inFlight() == 1);
    var b = http.sendAsync(req, HttpResponse.BodyHandlers.ofString());
    await()
        .atMost(Duration.ofSeconds(1))
        .until(
            () ->
                seenAt(w0, "/v1/embeddings") == before0 + 1
                    && seenAt(w1, "/v1/embeddings") == before1 + 1);
    // Both time out (limits.firstByteTimeoutMs) and are answered 504.
    assertThat(a.get().statusCode()).isEqualTo(504);
    assertThat(b.get().statusCode()).isEqualTo(504);
  }

  private static int seenAt(StubEngine e, String path) {
    return (int) e.seen().stream().filter(s -> s.path().equals(path)).count();
  }

  @Test
  void messagesAreForwardedAndTheStreamComesBackUnchanged() throws Exception {
    String stream = MESSAGES.replace("\"max_tokens\":16", "\"max_tokens\":16,\"stream\":true");
    HttpResponse<String> r =
        router.post("/v1/messages", stream, "content-type", "application/json");
    assertThat(r.statusCode()).isEqualTo(200);
    String worker = r.headers().firstValue("x-infera-worker").orElseThrow();
    assertThat(r.body()).isEqualTo(StubEngine.sse(worker));
    assertThat(lastSeen().path()).isEqualTo("/v1/messages");
    assertThat(lastSeen().body()).isEqualTo(stream);
  }

  @Test
  void unknownPathsStay404() throws Exception {
    HttpResponse<String> r = router.post("/v1/nope", "{}", "content-type", "application/json");
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.body()).contains("\"error\":{").contains("not_found");
    assertThat(router.get("/v1/messages").statusCode()).isEqualTo(404); // GET is no route
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> anthropicError(HttpResponse<String> r, String type)
      throws Exception {
    Map<String, Object> body = (Map<String, Object>) Json.parse(r.body());
    assertThat(body).containsEntry("type", "error").containsOnlyKeys("type", "error");
    Map<String, Object> err = (Map<String, Object>) body.get("error");
    assertThat(err).containsEntry("type", type).containsKey("message");
    return err;
  }

  @Test
  void messagesFailuresAreInAnthropicsErrorShape() throws Exception {
    HttpResponse<String> bad =
        router.post("/v1/messages", "{\"max_tokens\":1,\"messages\":[{\"role\":\"user\"}]}");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(anthropicError(bad, "invalid_request_error").get("message").toString())
        .contains("content");

    HttpResponse<String> notJson = router.post("/v1/messages", "{\"max_tokens\":");
    assertThat(notJson.statusCode()).isEqualTo(400);
    anthropicError(notJson, "invalid_request_error");

    HttpResponse<String> model =
        router.post("/v1/messages", MESSAGES.replace("Qwen/Qwen3-0.6B", "claude-x"));
    assertThat(model.statusCode()).isEqualTo(404);
    anthropicError(model, "not_found_error");

    HttpResponse<String> big =
        router.post("/v1/messages", MESSAGES.replace("Say hello.", "x".repeat(5000)));
    assertThat(big.statusCode()).isEqualTo(413);
    anthropicError(big, "request_too_large");

    HttpResponse<String> empty = router.post("/v1/messages", "");
    assertThat(empty.statusCode()).isEqualTo(400);
    anthropicError(empty, "invalid_request_error");
  }

  @Test
  void aFailingFleetAnswersMessagesWithAnAnthropicApiError() throws Exception {
    w0.mode(StubEngine.Mode.CLOSE_BEFORE_RESPONSE);
    w1.mode(StubEngine.Mode.CLOSE_BEFORE_RESPONSE);
    HttpResponse<String> r = router.post("/v1/messages", MESSAGES);
    assertThat(r.statusCode()).isEqualTo(502);
    anthropicError(r, "api_error");
    // The same failure on an OpenAI endpoint keeps OpenAI's shape.
    HttpResponse<String> o =
        router.post("/v1/responses", "{\"model\":\"Qwen/Qwen3-0.6B\",\"input\":\"hi\"}");
    assertThat(o.statusCode()).isEqualTo(502);
    assertThat(o.body()).startsWith("{\"error\":{").contains("\"code\":\"worker_failed\"");
  }

  @Test
  void theEnginesOwnErrorIsPassedOn() throws Exception {
    w0.mode(StubEngine.Mode.STATUS_429);
    w1.mode(StubEngine.Mode.STATUS_429);
    HttpResponse<String> r = router.post("/v1/messages", MESSAGES);
    assertThat(r.statusCode()).isEqualTo(429);
    assertThat(r.body()).isEqualTo("{\"error\":{\"message\":\"slow down\"}}");
  }
}
