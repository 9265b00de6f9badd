package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.PolicyName;
import io.infera.router.json.Json;
import io.infera.router.kv.WorkerId;
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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Image affinity live: the real router (static discovery, ZMQ KV events, kv-aware with no extra
 * configuration) in front of 4 simulated vLLM engines, which serve images as opaque prompt tokens.
 * First requests for 8 images go out together (spread by load); then each image is asked about
 * again with another question and another system prompt: it must reach the worker that served it
 * ({@code x-infera-worker}), whose engine reports the image's blocks cached ({@code
 * cached_tokens}); the router counts the affinity hits.
 */
class MultimodalAffinityIT {

  static final FleetSpec FLEET = FleetSpec.of(4, 4096);
  static final int IMAGES = 8;

  record Answer(String worker, int promptTokens, int cachedTokens) {}

  @Test
  void aRepeatImageReachesItsWarmWorkerAndHitsItsCache() throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    try (LiveStack stack = LiveStack.start(FLEET, 1, 1, FLEET.policy(PolicyName.KV_AWARE))) {
      List<CompletableFuture<Answer>> firsts = new ArrayList<>();
      for (int i = 0; i < IMAGES; i++) {
        String body = chat("You are helpful.", "What is in this picture?", url(i));
        firsts.add(CompletableFuture.supplyAsync(() -> sendUnchecked(http, stack, body)));
      }
      List<Answer> first = new ArrayList<>();
      for (CompletableFuture<Answer> f : firsts) {
        first.add(f.get(120, TimeUnit.SECONDS));
      }
      Set<String> spread = new HashSet<>();
      first.forEach(a -> spread.add(a.worker()));
      assertThat(spread).as("unseen images go by load").hasSizeGreaterThan(1);
      settle(stack);

      List<String> misses = new ArrayList<>();
      for (int i = 0; i < IMAGES; i++) {
        Answer again = send(http, stack, chat("Be brief.", "Describe the colours.", url(i)));
        // The image's tokens come first (256 at least, the simulator's smallest image): their full
        // blocks are cached on the warm worker; the text after them differs.
        if (!again.worker().equals(first.get(i).worker()) || again.cachedTokens() < 256) {
          misses.add("image " + i + ": first " + first.get(i) + ", again " + again);
        }
        settle(stack);
      }
      assertThat(misses).as("repeat images that missed the warm worker").isEmpty();
      String metrics = stack.router().runtime().scrape();
      assertThat(counter(metrics, "infera_multimodal_images_total{affinity=\"hit\"}"))
          .isGreaterThanOrEqualTo(IMAGES);
      assertThat(counter(metrics, "infera_multimodal_requests_total")).isEqualTo(2.0 * IMAGES);
    }
  }

  private static String url(int i) {
    return "https://images.example/photo-" + i + ".jpg";
  }

  private static String chat(String system, String question, String image) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("model", BenchRouterConfig.MODEL);
    body.put(
        "messages",
        List.of(
            Map.of("role", "system", "content", system),
            Map.of(
                "role",
                "user",
                "content",
                List.of(
                    Map.of("type", "image_url", "image_url", Map.of("url", image)),
                    Map.of("type", "text", "text", question)))));
    body.put("max_tokens", 4);
    body.put("stream", true);
    body.put("stream_options", Map.of("include_usage", true));
    return Json.write(body);
  }

  private static double counter(String exposition, String sample) {
    for (String line : exposition.split("\n")) {
      if (line.startsWith(sample + " ")) {
        return Double.parseDouble(line.substring(sample.length() + 1).trim());
      }
    }
    throw new AssertionError("no sample " + sample);
  }

  /** Waits until the router has no request in flight. */
  private static void settle(LiveStack stack) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      boolean idle = true;
      for (int w = 0; w < FLEET.workers(); w++) {
        idle &= stack.router().runtime().load().load(WorkerId.of("w" + w)).inFlight() == 0;
      }
      if (idle) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("router did not settle");
  }

  private static Answer sendUnchecked(HttpClient http, LiveStack stack, String body) {
    try {
      return send(http, stack, body);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static Answer send(HttpClient http, LiveStack stack, String body) throws Exception {
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(stack.router().url() + "/v1/chat/completions"))
            .timeout(Duration.ofSeconds(60))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    HttpResponse<InputStream> resp = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    assertThat(resp.statusCode()).isEqualTo(200);
    String worker = resp.headers().firstValue("x-infera-worker").orElseThrow();
    SseAnswer answer = new SseAnswer(() -> 0);
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(resp.body(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        answer.accept(line);
      }
    }
    return new Answer(worker, answer.promptTokens(), answer.cachedTokens());
  }
}
