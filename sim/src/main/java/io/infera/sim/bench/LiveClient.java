package io.infera.sim.bench;

import io.infera.router.json.Json;
import io.infera.router.kv.BlockHasher;
import io.infera.sim.bench.report.RequestResult;
import io.infera.sim.engine.SimEngine;
import io.infera.sim.workload.Session;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Sends one turn of a live conversation, streamed, and measures it: to the router (policy arms; the
 * router says which worker served it) or straight to the engine the {@link Oracle} picks by the
 * engines' true caches. TTFT is the first SSE text chunk ({@link SseAnswer}); the answer goes back
 * into the conversation.
 */
final class LiveClient implements LoadGenerator.Sender, AutoCloseable {

  /** Which worker served the request (set by the router). */
  static final String WORKER_HEADER = "x-infera-worker";

  private final LiveStack stack;
  private final LiveCluster.Api api;
  private final Arm arm;
  private final int seed;
  private final SimClock clock;
  private final TrueCachePicker oracle;
  private final BlockHasher hasher;
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final HttpClient http;

  LiveClient(
      LiveStack stack, FleetSpec fleet, LiveCluster.Api api, Arm arm, int seed, SimClock clock) {
    if (arm.usesTrueCaches() && api == LiveCluster.Api.CHAT) {
      throw new IllegalArgumentException(
          "the " + arm.name() + " arm needs token-id prompts (completions)");
    }
    if (!arm.usesTrueCaches() && stack.frontUrl() == null) {
      throw new IllegalArgumentException("the " + arm.name() + " arm needs a router");
    }
    this.stack = stack;
    this.api = api;
    this.arm = arm;
    this.seed = seed;
    this.clock = clock;
    this.oracle = TrueCachePicker.of(arm, fleet, System::nanoTime);
    this.hasher = new BlockHasher(fleet.blockSize());
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .executor(pool)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
  }

  @Override
  public RequestResult send(Conversation c) {
    Session s = c.session();
    int k = c.turn();
    int[] prompt = c.prompt();
    String url;
    String worker = null;
    Oracle.Pick pick = null;
    if (oracle != null) {
      pick = oracle.pick(hasher.requestHashes(prompt, 0), trueCachedBlocks(prompt));
      worker = Oracle.workerId(pick.worker()).value();
      url = stack.engines().get(pick.worker()).url();
    } else {
      url = stack.frontUrl();
    }
    // After the oracle's decision: asking every engine waits for their steps to end, a cost of
    // the simulation that a request should not be charged.
    double sent = clock.nowMs();
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(url + path(api)))
            .timeout(Duration.ofMinutes(10))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(Json.write(body(c, prompt))))
            .build();
    try {
      HttpResponse<InputStream> resp = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
      if (worker == null) {
        worker = resp.headers().firstValue(WORKER_HEADER).orElse(null);
      }
      if (resp.statusCode() != 200) {
        resp.body().close();
        return RequestResult.failed(
            arm.name(), seed, s.id(), k, worker, sent, errorKind(resp.statusCode()));
      }
      SseAnswer answer;
      try (BufferedReader in =
          new BufferedReader(new InputStreamReader(resp.body(), StandardCharsets.UTF_8))) {
        answer = new SseAnswer(clock::nowMs);
        String line;
        while ((line = in.readLine()) != null) {
          answer.accept(line);
          if (pick != null && answer.firstTokenMs() >= 0) {
            pick.booking().firstToken(); // the oracle's own load model hears its first token
          }
        }
      }
      double end = clock.nowMs();
      if (api == LiveCluster.Api.CHAT) {
        c.answered(answer.text());
      } else {
        c.answered(BenchTokenizer.qwen3().encodeRendered(answer.text()));
      }
      return RequestResult.ok(
          arm.name(),
          seed,
          s.id(),
          k,
          worker,
          sent,
          (answer.firstTokenMs() < 0 ? end : answer.firstTokenMs()) - sent,
          end - sent,
          answer.itlMs(),
          answer.promptTokens() < 0 ? prompt.length : answer.promptTokens(),
          answer.cachedTokens(),
          answer.completionTokens());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return RequestResult.failed(arm.name(), seed, s.id(), k, worker, sent, "interrupted");
    } catch (Exception e) {
      return RequestResult.failed(
          arm.name(), seed, s.id(), k, worker, sent, "exception: " + e.getClass().getSimpleName());
    } finally {
      if (pick != null) {
        pick.booking().release();
      }
    }
  }

  static String path(LiveCluster.Api api) {
    return switch (api) {
      case CHAT -> "/v1/chat/completions";
      case COMPLETIONS -> "/v1/completions";
    };
  }

  /** The streamed request of the conversation's current turn. */
  private Map<String, Object> body(Conversation c, int[] prompt) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("model", BenchRouterConfig.MODEL);
    switch (api) {
      case CHAT -> body.put("messages", c.session().messages(c.turn(), c.answers()));
      case COMPLETIONS -> {
        List<Integer> ids = new ArrayList<>(prompt.length);
        for (int t : prompt) {
          ids.add(t);
        }
        body.put("prompt", ids);
      }
    }
    body.put("max_tokens", c.current().outputTokens());
    body.put("stream", true);
    body.put("stream_options", Map.of("include_usage", true));
    return body;
  }

  /** 429, and 503 with no routable worker, are the router's rejections. */
  static String errorKind(int status) {
    return status == 429 || status == 503 ? RequestResult.REJECTED : "http_" + status;
  }

  /** Every engine's true cached prefix of {@code prompt}, in blocks, asked of all at once. */
  private int[] trueCachedBlocks(int[] prompt) {
    List<SimEngine> engines = stack.engines();
    List<CompletableFuture<Integer>> truth = new ArrayList<>(engines.size());
    for (SimEngine e : engines) {
      truth.add(e.inspect(0, core -> core.blocks().cachedPrefixBlocks(prompt, null)));
    }
    int[] cached = new int[truth.size()];
    for (int i = 0; i < cached.length; i++) {
      cached[i] = trueCachedBlocks(truth.get(i));
    }
    return cached;
  }

  /** The engine's answer, or 0 if it cannot say in time. */
  private static int trueCachedBlocks(CompletableFuture<Integer> answer) {
    try {
      return answer.get(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    } catch (Exception e) {
      return 0;
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
