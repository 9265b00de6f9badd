package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.PolicyName;
import io.infera.router.json.Json;
import io.infera.router.kv.WorkerId;
import io.infera.sim.workload.Vocabulary;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The simple case, live: the real router (static discovery, ZMQ KV events) in front of 4
 * simulated vLLM engines. Per prompt length, two streamed requests with the same system prompt and
 * a different question, the second sent after the first ended and its KV events arrived: the second
 * goes to the worker that served the first ({@code x-infera-worker}), which reports the prompt
 * cached ({@code x-infera-cache-hit-blocks}, and the engine's own {@code cached_tokens}).
 */
class IdleFleetAffinityIT {

  static final FleetSpec FLEET = FleetSpec.of(4, 2048);
  static final List<Integer> PROMPT_BLOCKS = List.of(2, 5, 10, 25, 50, 100, 200);

  record Answer(String worker, int hitBlocks, int cachedTokens) {}

  @Test
  void theSecondRequestGoesToTheWarmWorkerAndHitsItsCache() throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    Random r = new Random(15);
    List<String> misses = new ArrayList<>();
    try (LiveStack stack = LiveStack.start(FLEET, 1, 1, FLEET.policy(PolicyName.KV_AWARE))) {
      for (int blocks : PROMPT_BLOCKS) {
        int[] system = tokens(r, blocks * FLEET.blockSize());
        long indexed = indexed(stack);
        Answer first = send(http, stack, prompt(system, tokens(r, 24)));
        // Its blocks are in the router's index (system prompt and the question's full block).
        settle(stack, first.worker(), indexed + blocks + 1);
        Answer second = send(http, stack, prompt(system, tokens(r, 24)));
        if (!second.worker().equals(first.worker())
            || second.hitBlocks() < blocks
            || second.cachedTokens() < blocks * FLEET.blockSize()) {
          misses.add(blocks + " blocks: first " + first + ", second " + second);
        }
        settle(stack, second.worker(), indexed + blocks + 2);
      }
    }
    assertThat(misses).as("trials that missed the warm worker").isEmpty();
  }

  /** Blocks the router's index holds over all workers. */
  private static long indexed(LiveStack stack) {
    return stack.router().runtime().index().stats().blocksPerWorker().values().stream()
        .mapToLong(Long::longValue)
        .sum();
  }

  /**
   * Waits until the router's index holds {@code blocks} blocks and the router has no request in
   * flight on {@code worker}.
   */
  private static void settle(LiveStack stack, String worker, long blocks) throws Exception {
    WorkerId id = WorkerId.of(worker);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      stack.router().runtime().ingest().flush().get(5, TimeUnit.SECONDS);
      if (stack.router().runtime().load().load(id).inFlight() == 0 && indexed(stack) >= blocks) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError(
        "router did not settle on " + worker + ": " + indexed(stack) + " of " + blocks + " blocks");
  }

  private static int[] tokens(Random r, int n) {
    int[] t = new int[n];
    for (int i = 0; i < n; i++) {
      t[i] = Vocabulary.FIRST_ID + r.nextInt(Vocabulary.SIZE);
    }
    return t;
  }

  private static int[] prompt(int[] system, int[] question) {
    int[] p = java.util.Arrays.copyOf(system, system.length + question.length);
    System.arraycopy(question, 0, p, system.length, question.length);
    return p;
  }

  private static Answer send(HttpClient http, LiveStack stack, int[] prompt) throws Exception {
    List<Integer> ids = new ArrayList<>(prompt.length);
    for (int t : prompt) {
      ids.add(t);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("model", BenchRouterConfig.MODEL);
    body.put("prompt", ids);
    body.put("max_tokens", 8);
    body.put("stream", true);
    body.put("stream_options", Map.of("include_usage", true));
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(stack.router().url() + "/v1/completions"))
            .timeout(Duration.ofSeconds(60))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(Json.write(body)))
            .build();
    HttpResponse<InputStream> resp = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    assertThat(resp.statusCode()).isEqualTo(200);
    String worker = resp.headers().firstValue("x-infera-worker").orElseThrow();
    int hits =
        Integer.parseInt(resp.headers().firstValue("x-infera-cache-hit-blocks").orElse("-1"));
    SseAnswer answer = new SseAnswer(() -> 0);
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(resp.body(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        answer.accept(line);
      }
    }
    return new Answer(worker, hits, answer.cachedTokens());
  }
}
