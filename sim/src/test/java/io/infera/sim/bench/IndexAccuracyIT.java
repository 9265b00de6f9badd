package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.PolicyName;
import io.infera.router.events.EventTransport;
import io.infera.router.events.inproc.InprocBus;
import io.infera.router.events.inproc.InprocTransport;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The {@code IndexAccurate} condition against simulated vLLM engines and the real router: engines
 * that report {@code cached_tokens} and an index fed by their ZMQ events make it True; engines
 * without the report make it Unknown; an index that never sees the events (dropped on purpose)
 * makes it False while the engines keep reporting hits. Both streaming (with {@code include_usage})
 * and non-streaming answers are compared, and what the client gets is the engine's answer.
 */
class IndexAccuracyIT {

  private static final FleetSpec FLEET = FleetSpec.of(2, 4096);
  private static final String SYSTEM =
      "You are a careful assistant for the accuracy test. ".repeat(40);

  private record Stack(Vertx vertx, List<SimEngine> engines, InJvmRouter router)
      implements AutoCloseable {
    @Override
    public void close() {
      router.close();
      engines.forEach(SimEngine::close);
      vertx.close();
    }
  }

  private static Stack start(boolean details, Supplier<EventTransport> transport) throws Exception {
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
              .hashSeed(4000L + i)
              .promptTokensDetails(details)
              .build();
      engines.add(SimEngine.start(o, vertx, BenchTokenizer.qwen3()));
    }
    InJvmRouter router =
        InJvmRouter.start(
            vertx,
            BenchRouterConfig.of(FLEET, FLEET.policy(PolicyName.KV_AWARE), engines),
            transport.get());
    return new Stack(vertx, engines, router);
  }

  /** {@code n} chats sharing a long system prompt, every third one streamed with usage. */
  private static List<String> traffic(Stack s, int n) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      boolean stream = i % 3 == 2;
      Map<String, Object> body = new java.util.LinkedHashMap<>();
      body.put("model", BenchRouterConfig.MODEL);
      body.put(
          "messages",
          List.of(
              Map.of("role", "system", "content", SYSTEM),
              Map.of("role", "user", "content", "question number " + i + " about topic " + i)));
      body.put("max_tokens", 3);
      if (stream) {
        body.put("stream", true);
        body.put("stream_options", Map.of("include_usage", true));
      }
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(s.router().url() + "/v1/chat/completions"))
                  .header("content-type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(Json.write(body)))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      answers.add(r.body());
      Thread.sleep(30); // the engine's events reach the index before the next pick
    }
    return answers;
  }

  private static Map<?, ?> indexAccurate(Stack s) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(s.router().adminUrl() + "/v1/admin/status"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return (Map<?, ?>) ((Map<?, ?>) Json.parse(r.body())).get("index_accurate");
  }

  @Test
  void engineReportsConfirmAnIndexFedByTheirEvents() throws Exception {
    try (Stack s = start(true, ZmqTransport::new)) {
      List<String> answers = traffic(s, 30);
      // The client sees the engine's own usage, untouched, in both kinds of answer.
      assertThat(answers.get(1)).contains("\"prompt_tokens_details\":{\"cached_tokens\":");
      assertThat(answers.get(2)).contains("data: [DONE]").contains("\"cached_tokens\":");
      Map<?, ?> a = indexAccurate(s);
      assertThat(a.get("status")).as(a.toString()).isEqualTo("True");
      assertThat(a.get("reason")).isEqualTo("Accurate");
      assertThat(((Number) a.get("samples")).intValue()).isEqualTo(30);
      assertThat(((Number) a.get("precision")).doubleValue()).isGreaterThanOrEqualTo(0.8);
      assertThat(((Number) a.get("recall")).doubleValue()).isGreaterThanOrEqualTo(0.8);
      String metrics =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(s.router().adminUrl() + "/metrics")).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(metrics)
          .contains("infera_index_accuracy_blocks_total{kind=\"predicted_hit\",pool=\"static\"}")
          .contains("infera_index_accuracy_condition 0.0");
    }
  }

  @Test
  void enginesThatDoNotReportLeaveItUnknown() throws Exception {
    try (Stack s = start(false, ZmqTransport::new)) {
      List<String> answers = traffic(s, 24);
      assertThat(answers.get(1)).contains("\"prompt_tokens_details\":null");
      Map<?, ?> a = indexAccurate(s);
      assertThat(a.get("status")).as(a.toString()).isEqualTo("Unknown");
      assertThat(a.get("reason")).isEqualTo("NotReported");
      assertThat(((Number) a.get("unreported")).intValue()).isEqualTo(24);
      assertThat(a.get("precision")).isNull();
    }
  }

  @Test
  void anIndexThatMissesTheEventsIsFalse() throws Exception {
    // The events go nowhere the router listens: its index stays empty while the engines cache.
    try (Stack s =
        start(true, () -> new InprocTransport(InprocBus.named("index-accuracy-it-nobody")))) {
      traffic(s, 30);
      Map<?, ?> a = indexAccurate(s);
      assertThat(a.get("status")).as(a.toString()).isEqualTo("False");
      assertThat(a.get("reason")).isEqualTo("MissedHits");
      assertThat(((Number) a.get("recall")).doubleValue()).isLessThan(0.8);
    }
  }
}
