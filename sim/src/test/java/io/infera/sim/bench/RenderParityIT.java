package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.config.ParityConfig;
import io.infera.router.config.PolicyName;
import io.infera.router.config.RouterConfig;
import io.infera.router.events.zmq.ZmqTransport;
import io.infera.router.json.Json;
import io.infera.sim.engine.EngineOptions;
import io.infera.sim.engine.Flavor;
import io.infera.sim.engine.SimEngine;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Render parity against simulated vLLM engines and the real router: of two engines, {@code w1}
 * renders chats with a different template ({@code --divergent-template}). The router's probe marks
 * it in {@code /v1/admin/status} and the metrics; a conversation {@code w1} cached is then found
 * there, through the engine's {@code /tokenize}, and routed to it with its hits — while a router
 * with probing off sees 0 hits on {@code w1} for the same conversation (the "why are my hits 0?"
 * case).
 */
class RenderParityIT {

  private static final FleetSpec FLEET = FleetSpec.of(2, 4096);
  private static final String SYSTEM =
      "You are the assistant of the render-parity test. ".repeat(30);
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private record Stack(Vertx vertx, List<SimEngine> engines, InJvmRouter router)
      implements AutoCloseable {
    @Override
    public void close() {
      router.close();
      engines.forEach(SimEngine::close);
      vertx.close();
    }
  }

  private static Stack start(boolean parity) throws Exception {
    Vertx vertx = Vertx.vertx();
    List<SimEngine> engines = new ArrayList<>();
    for (int i = 0; i < FLEET.workers(); i++) {
      EngineOptions o =
          EngineOptions.defaults().toBuilder()
              .flavor(Flavor.VLLM)
              .blockSize(FLEET.blockSize())
              .numBlocks(FLEET.blocksPerWorker())
              .model(BenchRouterConfig.MODEL)
              .speedup(50)
              .hashSeed(5000L + i)
              .divergentTemplate(i == 1 ? "<|im_start|>system\nsite policy v2<|im_end|>\n" : null)
              .build();
      engines.add(SimEngine.start(o, vertx, BenchTokenizer.qwen3()));
    }
    RouterConfig c = BenchRouterConfig.of(FLEET, FLEET.policy(PolicyName.KV_AWARE), engines);
    RouterConfig.Tokenizer t = c.tokenizer();
    RouterConfig cfg =
        new RouterConfig(
            c.model(),
            c.loraAdapters(),
            c.pageSize(),
            new RouterConfig.Tokenizer(
                t.path(),
                t.mode(),
                t.prefixReuse(),
                t.revision(),
                new ParityConfig(
                    parity,
                    ParityConfig.DEFAULT_INTERVAL_MS,
                    ParityConfig.DEFAULT_TIMEOUT_MS,
                    ParityConfig.DEFAULT_MAX_ANSWER_BYTES)),
            c.policy(),
            c.events(),
            c.discovery(),
            c.limits(),
            c.listen(),
            c.index(),
            c.server(),
            c.admin(),
            c.engineLoad());
    return new Stack(vertx, engines, InJvmRouter.start(vertx, cfg, new ZmqTransport()));
  }

  private static String chat(String question) {
    return Json.write(
        Map.of(
            "model",
            BenchRouterConfig.MODEL,
            "max_tokens",
            2,
            "messages",
            List.of(
                Map.of("role", "system", "content", SYSTEM),
                Map.of("role", "user", "content", question))));
  }

  private static HttpResponse<String> post(String url, String body) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String get(String url) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r.body();
  }

  private static Map<?, ?> status(Stack s) throws Exception {
    return (Map<?, ?>) Json.parse(get(s.router().adminUrl() + "/v1/admin/status"));
  }

  private static Map<?, ?> workerParity(Map<?, ?> status, String id) {
    for (Object w : (List<?>) status.get("workers")) {
      if (id.equals(((Map<?, ?>) w).get("id"))) {
        return (Map<?, ?>) ((Map<?, ?>) w).get("render_parity");
      }
    }
    throw new AssertionError("no worker " + id + " in " + status);
  }

  /** Sends the chat straight to engine {@code i} and waits until its blocks are in the index. */
  private static void warm(Stack s, int i, String body) throws Exception {
    String w = Oracle.workerId(i).value();
    long before = blocks(s, w);
    HttpResponse<String> r = post(s.engines().get(i).url() + "/v1/chat/completions", body);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> blocks(s, w) > before);
  }

  private static long blocks(Stack s, String worker) throws Exception {
    Map<?, ?> v =
        (Map<?, ?>) Json.parse(get(s.router().adminUrl() + "/v1/admin/cache-view/" + worker));
    return ((Number) v.get("block_count")).longValue();
  }

  @Test
  void aDivergingWorkerIsMarkedAndItsRequestsUseTheEnginesTokens() throws Exception {
    try (Stack s = start(true)) {
      String w0 = Oracle.workerId(0).value();
      String w1 = Oracle.workerId(1).value();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> {
                Map<?, ?> now = status(s);
                return "diverged".equals(workerParity(now, w1).get("status"))
                    && !"pending".equals(workerParity(now, w0).get("status"));
              });
      Map<?, ?> st = status(s);
      assertThat(workerParity(st, w0).get("status")).isEqualTo("match");
      Map<?, ?> p1 = workerParity(st, w1);
      assertThat(p1.get("divergence")).isEqualTo("template"); // plain prompts still match
      assertThat(p1.get("uses")).isEqualTo("engine tokenization for chats");
      assertThat((String) p1.get("detail")).contains("system_user: differs at token 3");
      Map<?, ?> cond = (Map<?, ?>) st.get("render_parity");
      assertThat(cond.get("status")).isEqualTo("False");
      assertThat(cond.get("reason")).isEqualTo("Diverged");
      assertThat(cond.get("diverged")).isEqualTo(List.of(w1));
      String metrics = get(s.router().adminUrl() + "/metrics");
      assertThat(metrics)
          .contains("infera_render_parity_worker{status=\"diverged\",worker=\"" + w1 + "\"} 1.0")
          .contains("infera_render_parity_worker{status=\"match\",worker=\"" + w0 + "\"} 1.0")
          .contains(
              "infera_render_parity_probes_total{result=\"diverged\",trigger=\"discovery\"} 1.0");

      // w1 caches a conversation in its own rendering; the router finds it through w1's /tokenize.
      String body = chat("What does the policy say about refunds?");
      warm(s, 1, body);
      HttpResponse<String> r = post(s.router().url() + "/v1/chat/completions", body);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      assertThat(r.headers().firstValue("x-infera-worker")).contains(w1);
      assertThat(Integer.parseInt(r.headers().firstValue("x-infera-cache-hit-blocks").orElse("0")))
          .isGreaterThan(10);
      assertThat(get(s.router().adminUrl() + "/metrics"))
          .containsPattern("infera_render_parity_requests_total\\{path=\"engine\"} [1-9]");

      // The matching worker keeps the router's own tokens: a conversation it cached is found too.
      String other = chat("And about exchanges?");
      warm(s, 0, other);
      HttpResponse<String> r0 = post(s.router().url() + "/v1/chat/completions", other);
      assertThat(r0.headers().firstValue("x-infera-worker")).contains(w0);
      assertThat(Integer.parseInt(r0.headers().firstValue("x-infera-cache-hit-blocks").orElse("0")))
          .isGreaterThan(10);
    }
  }

  @Test
  void withoutProbingTheDivergingWorkersCacheIsInvisible() throws Exception {
    try (Stack s = start(false)) {
      String w1 = Oracle.workerId(1).value();
      Map<?, ?> cond = (Map<?, ?>) status(s).get("render_parity");
      assertThat(cond.get("reason")).isEqualTo("Disabled");
      assertThat(workerParity(status(s), w1).get("status")).isEqualTo("disabled");
      String body = chat("What does the policy say about refunds?");
      warm(s, 1, body);
      HttpResponse<String> r = post(s.router().url() + "/v1/chat/completions", body);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      // The router's tokens miss every block w1 holds: hits 0, the pick is by load alone.
      assertThat(r.headers().firstValue("x-infera-cache-hit-blocks")).contains("0");
    }
  }
}
