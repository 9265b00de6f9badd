package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.config.EngineLoadConfig;
import io.infera.router.config.PolicyConfig;
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
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Engine-reported load live: the real router scrapes two simulated engines' real {@code /metrics}
 * (one with vLLM's names, one with SGLang's), shows each worker's snapshot in {@code /v1/workers}
 * and its metrics, and charges a worker for requests that reached its engine without the router.
 */
class EngineLoadIT {

  private final Vertx vertx = Vertx.vertx();
  private final List<SimEngine> engines = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();
  private InJvmRouter router;

  @AfterEach
  void close() {
    if (router != null) {
      router.close();
    }
    engines.forEach(SimEngine::close);
    vertx.close();
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> worker(String id) throws Exception {
    Map<String, Object> doc =
        (Map<String, Object>) Json.parse(get(router.adminUrl() + "/v1/workers"));
    for (Object o : (List<Object>) doc.get("workers")) {
      Map<String, Object> w = (Map<String, Object>) o;
      if (id.equals(w.get("id"))) {
        return w;
      }
    }
    throw new AssertionError("no worker " + id + " in " + doc);
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> engineLoad(String id) throws Exception {
    return (Map<String, Object>) worker(id).get("engine_load");
  }

  private String get(String url) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static HttpRequest completion(String base, String prompt, int maxTokens) {
    String body =
        "{\"model\":\""
            + BenchRouterConfig.MODEL
            + "\",\"prompt\":\""
            + prompt
            + "\",\"max_tokens\":"
            + maxTokens
            + "}";
    return HttpRequest.newBuilder(URI.create(base + "/v1/completions"))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  @Test
  void theRouterScrapesBothFlavorsAndChargesUnseenWork() throws Exception {
    FleetSpec fleet = FleetSpec.of(2, 2048);
    for (Flavor f : List.of(Flavor.VLLM, Flavor.SGLANG)) {
      EngineOptions o =
          EngineOptions.defaults().toBuilder()
              .flavor(f)
              .blockSize(fleet.blockSize())
              .numBlocks(fleet.blocksPerWorker())
              .model(BenchRouterConfig.MODEL)
              .build();
      engines.add(SimEngine.start(o, vertx, BenchTokenizer.qwen3()));
    }
    RouterConfig c = BenchRouterConfig.of(fleet, PolicyConfig.defaults(), engines);
    RouterConfig cfg =
        new RouterConfig(
            c.model(),
            c.loraAdapters(),
            c.pageSize(),
            c.tokenizer(),
            c.policy(),
            c.events(),
            c.discovery(),
            c.limits(),
            c.listen(),
            c.index(),
            c.server(),
            c.admin(),
            new EngineLoadConfig(true, 100, 1000, 1000, 1.0, 4 << 20, Set.of(), Set.of()));
    router = InJvmRouter.start(vertx, cfg, new ZmqTransport());

    for (String w : List.of("w0", "w1")) {
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  "ok".equals(engineLoad(w).get("last_scrape"))
                      && Boolean.TRUE.equals(engineLoad(w).get("fresh")));
      assertThat(((Number) engineLoad(w).get("age_ms")).longValue()).isBetween(0L, 1000L);
      assertThat(((Number) engineLoad(w).get("requests")).doubleValue()).isZero();
    }

    // Traffic through the router: both ratios appear for the workers it went to.
    String prompt = "word ".repeat(200);
    for (int i = 0; i < 4; i++) {
      assertThat(
              http.send(
                      completion(router.url(), prompt + i, 4), HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(200);
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              for (String w : List.of("w0", "w1")) {
                Map<String, Object> e = engineLoad(w);
                if (e.get("predicted_prefix_hit_ratio") != null
                    && e.get("engine_prefix_hit_ratio") != null) {
                  return true;
                }
              }
              return false;
            });

    // Requests sent to w1's engine directly (the router never booked them).
    List<CompletableFuture<HttpResponse<Void>>> direct = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      direct.add(
          http.sendAsync(
              completion(engines.get(1).url(), "direct " + i + " " + "x ".repeat(300), 4000),
              HttpResponse.BodyHandlers.discarding()));
    }
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () -> {
              Map<String, Object> e = engineLoad("w1");
              return e.get("requests") != null
                  && ((Number) e.get("requests")).doubleValue() >= 6
                  && ((Number) e.get("blocks")).doubleValue() > 0;
            });
    String explain =
        http.send(
                HttpRequest.newBuilder(URI.create(router.adminUrl() + "/v1/admin/explain"))
                    .header("content-type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"model\":\""
                                + BenchRouterConfig.MODEL
                                + "\",\"prompt\":\"fresh "
                                + "y ".repeat(100)
                                + "\"}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    assertThat(explain).contains("\"engine_blocks\"").contains("\"engine_age_ms\"");
    assertThat(explain).contains("\"picked\":\"w0\"");

    String metrics = get(router.adminUrl() + "/metrics");
    assertThat(metrics)
        .contains("infera_engine_scrapes_total{result=\"ok\",worker=\"w0\"}")
        .contains("infera_engine_scrapes_total{result=\"ok\",worker=\"w1\"}")
        .contains("infera_engine_load_age_seconds{worker=\"w1\"}")
        .contains("infera_worker_engine_prefix_hit_ratio{worker=\"w0\"}");
    direct.forEach(f -> f.cancel(true));
  }
}
