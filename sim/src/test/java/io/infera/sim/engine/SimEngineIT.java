package io.infera.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.json.Json;
import io.infera.router.kv.ApplyOutcome;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEventDecoder;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.WorkerId;
import io.infera.router.tokenize.ChatInput;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.VllmChat;
import io.vertx.core.Vertx;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Real HTTP (JDK client) and real ZMQ (jeromq SUB and DEALER) against simulated engines: response
 * formats, real prefix hits, tokenization parity with the router, KV events in every flavor
 * reproducing the engine's cache in a router index, replay, data parallelism and cancellation.
 */
class SimEngineIT {

  private static final String MODEL = "Qwen/Qwen3-0.6B";
  private static final String SYSTEM =
      "You are a meticulous assistant for a logistics company. Answer questions about shipments,"
          + " warehouses, customs paperwork and delivery windows. Be concise, cite the relevant"
          + " policy section, and never invent tracking numbers. If unsure, say so plainly.";

  private static PromptTokenizer tokenizer;
  private static Vertx vertx;
  private static HttpClient http;

  @BeforeAll
  static void setUp() throws Exception {
    tokenizer = PromptTokenizer.load("builtin:qwen3", PromptTokenizer.Options.defaults());
    vertx = Vertx.vertx();
    http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  @AfterAll
  static void tearDown() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    tokenizer.close();
  }

  private static SimEngine start(EngineOptions.Builder b) throws Exception {
    return SimEngine.start(b.build(), vertx, tokenizer);
  }

  private static EngineOptions.Builder fast() {
    return EngineOptions.defaults().toBuilder().speedup(20).numBlocks(2048);
  }

  // ---------------------------------------------------------------- OpenAI API

  @Test
  void chatAnswersWholeAndStreamedWithRealPrefixHits() throws Exception {
    try (SimEngine engine = start(fast())) {
      List<Object> messages = messages("Where is shipment 42 right now?");
      int promptTokens = chatIds(messages).length;

      HttpResponse<String> first =
          post(engine, "/v1/chat/completions", chat(messages, 8, false), "req-1");
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(first.headers().firstValue("x-request-id")).hasValue("req-1");
      Map<String, Object> body = obj(first.body());
      assertThat(body.get("object")).isEqualTo("chat.completion");
      assertThat((String) body.get("id")).startsWith("chatcmpl-");
      assertThat(body.get("model")).isEqualTo(MODEL);
      Map<String, Object> choice = first(body.get("choices"));
      assertThat(choice.get("finish_reason")).isEqualTo("length");
      Map<String, Object> message = obj(choice.get("message"));
      assertThat(message.get("role")).isEqualTo("assistant");
      String content = (String) message.get("content");
      // The answer's text re-encodes to exactly the tokens generated.
      assertThat(tokenizer.encodeRendered(content)).hasSize(8);
      Map<String, Object> usage = obj(body.get("usage"));
      assertThat(usage.get("prompt_tokens")).isEqualTo((long) promptTokens);
      assertThat(usage.get("completion_tokens")).isEqualTo(8L);
      assertThat(usage.get("total_tokens")).isEqualTo(promptTokens + 8L);
      assertThat(obj(usage.get("prompt_tokens_details")).get("cached_tokens")).isEqualTo(0L);

      // Same prompt again: the prompt's full blocks are served from the cache.
      Map<String, Object> again =
          obj(post(engine, "/v1/chat/completions", chat(messages, 8, false), null).body());
      long cached =
          (long) obj(obj(again.get("usage")).get("prompt_tokens_details")).get("cached_tokens");
      assertThat(cached).isPositive().isLessThanOrEqualTo(promptTokens);
      assertThat(cached % 16).isZero();
      assertThat(cached).isGreaterThanOrEqualTo((promptTokens - 1) / 16 * 16L);

      // Streamed, with usage.
      Map<String, Object> req = chat(messages, 5, true);
      req.put("stream_options", Map.of("include_usage", true));
      HttpResponse<String> streamed = post(engine, "/v1/chat/completions", req, null);
      assertThat(streamed.statusCode()).isEqualTo(200);
      assertThat(streamed.headers().firstValue("content-type").orElse(""))
          .startsWith("text/event-stream");
      List<Map<String, Object>> chunks = sse(streamed.body());
      assertThat(chunks).hasSize(6); // 5 tokens + usage
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < 5; i++) {
        Map<String, Object> c = chunks.get(i);
        assertThat(c.get("object")).isEqualTo("chat.completion.chunk");
        Map<String, Object> ch = first(c.get("choices"));
        Map<String, Object> delta = obj(ch.get("delta"));
        if (i == 0) {
          assertThat(delta.get("role")).isEqualTo("assistant");
        }
        text.append((String) delta.get("content"));
        assertThat(ch.get("finish_reason")).isEqualTo(i == 4 ? "length" : null);
      }
      assertThat(tokenizer.encodeRendered(text.toString())).hasSize(5);
      Map<String, Object> usageChunk = chunks.get(5);
      assertThat((List<?>) usageChunk.get("choices")).isEmpty();
      Map<String, Object> u = obj(usageChunk.get("usage"));
      assertThat(u.get("completion_tokens")).isEqualTo(5L);
      assertThat((long) obj(u.get("prompt_tokens_details")).get("cached_tokens")).isPositive();
    }
  }

  @Test
  void withoutPromptTokensDetailsNoHitIsReported() throws Exception {
    // An engine run without --enable-prompt-tokens-details / --enable-cache-report.
    try (SimEngine engine = start(fast().promptTokensDetails(false))) {
      List<Object> messages = messages("Where is shipment 42 right now?");
      post(engine, "/v1/chat/completions", chat(messages, 4, false), null);
      Map<String, Object> again =
          obj(post(engine, "/v1/chat/completions", chat(messages, 4, false), null).body());
      Map<String, Object> usage = obj(again.get("usage"));
      assertThat(usage).containsEntry("prompt_tokens_details", null);
      Map<String, Object> req = chat(messages, 2, true);
      req.put("stream_options", Map.of("include_usage", true));
      List<Map<String, Object>> chunks =
          sse(post(engine, "/v1/chat/completions", req, null).body());
      Map<String, Object> u = obj(chunks.get(chunks.size() - 1).get("usage"));
      assertThat(u).containsKey("prompt_tokens").doesNotContainKey("prompt_tokens_details");
    }
  }

  @Test
  void aNextChatTurnHitsThePreviousPromptAndCarriesTheAnswerTokensBack() throws Exception {
    try (SimEngine engine = start(fast())) {
      List<Object> turn1 = messages("Which warehouse handles returns?");
      int[] ids1 = chatIds(turn1);
      Map<String, Object> r1 =
          obj(post(engine, "/v1/chat/completions", chat(turn1, 24, false), null).body());
      String answer = (String) obj(first(r1.get("choices")).get("message")).get("content");

      List<Object> turn2 = new ArrayList<>(turn1);
      turn2.add(Map.of("role", "assistant", "content", answer));
      turn2.add(Map.of("role", "user", "content", "And who signs for them?"));
      int[] ids2 = chatIds(turn2);
      // The answer text comes back as exactly the 24 answer tokens, right after turn 1's prompt.
      assertThat(Arrays.copyOfRange(ids2, 0, ids1.length)).containsExactly(ids1);
      assertThat(Arrays.copyOfRange(ids2, ids1.length, ids1.length + 24))
          .containsExactly(tokenizer.encodeRendered(answer));

      Map<String, Object> r2 =
          obj(post(engine, "/v1/chat/completions", chat(turn2, 4, false), null).body());
      Map<String, Object> usage = obj(r2.get("usage"));
      assertThat(usage.get("prompt_tokens")).isEqualTo((long) ids2.length);
      long cached = (long) obj(usage.get("prompt_tokens_details")).get("cached_tokens");
      assertThat(cached).isGreaterThanOrEqualTo(ids1.length / 16 * 16L).isLessThan(ids2.length);
    }
  }

  @Test
  void completionsAcceptTextTokensAndBatches() throws Exception {
    try (SimEngine engine = start(fast())) {
      Map<String, Object> req = new LinkedHashMap<>();
      req.put("model", MODEL);
      req.put("prompt", "The quick brown fox");
      req.put("max_tokens", 3);
      Map<String, Object> body = obj(post(engine, "/v1/completions", req, null).body());
      assertThat(body.get("object")).isEqualTo("text_completion");
      assertThat((String) body.get("id")).startsWith("cmpl-");
      assertThat(obj(body.get("usage")).get("prompt_tokens"))
          .isEqualTo((long) tokenizer.encodeText("The quick brown fox").ids().length);
      assertThat(tokenizer.encodeRendered((String) first(body.get("choices")).get("text")))
          .hasSize(3);

      req.put("prompt", List.of(11L, 12L, 13L, 14L));
      req.remove("max_tokens"); // default 16
      body = obj(post(engine, "/v1/completions", req, null).body());
      assertThat(obj(body.get("usage")).get("prompt_tokens")).isEqualTo(4L);
      assertThat(obj(body.get("usage")).get("completion_tokens")).isEqualTo(16L);

      req.put("prompt", List.of("first prompt", "second prompt"));
      req.put("stream", true);
      HttpResponse<String> streamed = post(engine, "/v1/completions", req, null);
      List<Map<String, Object>> chunks = sse(streamed.body());
      assertThat(chunks).hasSize(16);
      assertThat(chunks.get(0).get("object")).isEqualTo("text_completion");
      assertThat(first(chunks.get(15).get("choices")).get("finish_reason")).isEqualTo("length");
    }
  }

  @Test
  void tokenizeMatchesTheRoutersTokenizer() throws Exception {
    try (SimEngine engine = start(fast())) {
      List<Object> messages = messages("Does customs need form C-88?");
      Map<String, Object> req = new LinkedHashMap<>();
      req.put("model", MODEL);
      req.put("messages", messages);
      Map<String, Object> body = obj(post(engine, "/tokenize", req, null).body());
      assertThat(ints(body.get("tokens"))).containsExactly(chatIds(messages));
      assertThat(body.get("count")).isEqualTo((long) chatIds(messages).length);
      assertThat(body.get("max_model_len")).isEqualTo(2048L * 16);

      Map<String, Object> text = Map.of("prompt", "hello world");
      body = obj(post(engine, "/tokenize", text, null).body());
      assertThat(ints(body.get("tokens")))
          .containsExactly(tokenizer.encodeText("hello world").ids());
    }
  }

  @Test
  void simCacheHoldsTheRouterHashesOfThePrompt() throws Exception {
    try (SimEngine engine = start(fast())) {
      int[] prompt = IntStream.range(0, 100).map(i -> 500 + i).toArray();
      Map<String, Object> req = new LinkedHashMap<>();
      req.put("model", MODEL);
      req.put("prompt", Arrays.stream(prompt).boxed().toList());
      req.put("max_tokens", 1); // the last generated token needs no KV: only prompt blocks
      assertThat(post(engine, "/v1/completions", req, null).statusCode()).isEqualTo(200);

      Map<String, Object> cache = obj(get(engine, "/sim/cache").body());
      assertThat(cache.get("block_size")).isEqualTo(16L);
      assertThat(cache.get("blocks")).isEqualTo(6L);
      assertThat(hashes(cache))
          .containsExactlyInAnyOrder(new BlockHasher(16).requestHashes(prompt, 0));
      assertThat(obj(get(engine, "/sim/cache?dp_rank=0").body()).get("blocks")).isEqualTo(6L);
      assertThat(get(engine, "/sim/cache?dp_rank=3").statusCode()).isEqualTo(400);
    }
  }

  // ---------------------------------------------------------------- KV events

  @ParameterizedTest
  @EnumSource(Flavor.class)
  void kvEventsRebuildTheEnginesCacheInARouterIndex(Flavor flavor) throws Exception {
    // 64 blocks: the 12 prompts of 10 blocks each force evictions (BlockRemoved).
    try (SimEngine engine = start(fast().flavor(flavor).numBlocks(64).hashSeed(7));
        ZmqProbe probe = new ZmqProbe(engine.zmqEndpoint())) {
      primeSubscription(engine, probe);
      List<CompletableFuture<HttpResponse<String>>> pending = new ArrayList<>();
      for (int r = 0; r < 12; r++) {
        int base = 1000 + r * 1000;
        int[] prompt = IntStream.range(0, 165).map(i -> i < 40 ? 77 + i : base + i).toArray();
        Map<String, Object> req = new LinkedHashMap<>();
        req.put("prompt", Arrays.stream(prompt).boxed().toList());
        req.put("max_tokens", 20);
        pending.add(postAsync(engine, "/v1/completions", req));
      }
      for (CompletableFuture<HttpResponse<String>> f : pending) {
        assertThat(f.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      }
      List<KvEventMessage> live = probe.drain(300, 5000);
      assertThat(live).isNotEmpty();
      for (int i = 0; i < live.size(); i++) {
        assertThat(live.get(i).seq()).isEqualTo(live.get(0).seq() + i);
        assertThat(new String(live.get(i).topic(), StandardCharsets.UTF_8)).isEqualTo("kv-events");
      }
      // Replay returns every batch from 0, ending with the sentinel; its tail is what we saw live.
      List<KvEventMessage> replayed = ZmqProbe.replay(engine.replayEndpoint(), 0);
      assertThat(replayed)
          .extracting(KvEventMessage::seq)
          .containsExactlyElementsOf(
              IntStream.range(0, replayed.size()).mapToObj(i -> (long) i).toList());
      long firstLive = live.get(0).seq();
      assertThat(replayed.size()).isEqualTo(firstLive + live.size());
      for (int i = 0; i < live.size(); i++) {
        assertThat(replayed.get((int) firstLive + i).payload()).isEqualTo(live.get(i).payload());
      }
      assertThat(ZmqProbe.replay(engine.replayEndpoint(), replayed.size() - 2)).hasSize(2);
      // Every flavor answers with the live topic frame, as vLLM 0.33.0 and SGLang 0.5.23 do.
      assertThat(replayed)
          .allSatisfy(
              m ->
                  assertThat(new String(m.topic(), StandardCharsets.UTF_8)).isEqualTo("kv-events"));

      PrefixIndex index = new PrefixIndex(16);
      WorkerId worker = WorkerId.of("sim");
      int removed = 0;
      boolean bigHash = false;
      for (KvEventMessage m : replayed) {
        byte first = m.payload()[0];
        if (flavor == Flavor.VLLM_MAP) {
          assertThat(first & 0xf0).as("fixmap batch").isEqualTo(0x80);
        } else {
          assertThat(first & 0xff).as("3-element array batch").isEqualTo(0x93);
        }
        EventBatch batch = KvEventDecoder.decode(m.payload());
        assertThat(batch.dpRank()).isEqualTo(0);
        assertThat(batch.events()).isNotEmpty();
        for (KvEvent e : batch.events()) {
          if (e instanceof KvEvent.BlockStored s) {
            assertThat(s.blockSize()).isEqualTo(16);
            if (flavor == Flavor.SGLANG) {
              assertThat(s.blockHashes()).hasSize(1);
            }
            assertThat(s.medium()).isEqualTo("GPU");
            bigHash |= Arrays.stream(s.blockHashes()).anyMatch(h -> h < 0);
          } else if (e instanceof KvEvent.BlockRemoved r) {
            removed += r.blockHashes().length;
          }
        }
        assertThat(index.apply(worker, m.seq(), batch)).isEqualTo(ApplyOutcome.APPLIED);
      }
      assertThat(removed).as("evictions").isPositive();
      assertThat(bigHash).as("some engine hash >= 2^63, sent as uint64").isTrue();
      long[] view = index.viewHashes(new SourceId(worker, 0));
      assertThat(view).containsExactly(hashes(obj(get(engine, "/sim/cache").body())));
      assertThat(view.length).isPositive();
    }
  }

  @Test
  void dataParallelRanksPublishOnConsecutivePorts() throws Exception {
    try (SimEngine engine = start(fast().dpSize(2).flavor(Flavor.VLLM))) {
      String rank1 = plusOne(engine.zmqEndpoint());
      try (ZmqProbe p0 = new ZmqProbe(engine.zmqEndpoint());
          ZmqProbe p1 = new ZmqProbe(rank1)) {
        String[] replay = {engine.replayEndpoint(), plusOne(engine.replayEndpoint())};
        long total = 0;
        for (int rank = 0; rank < 2; rank++) {
          // A SUB socket's subscription reaches the PUB side asynchronously: what a rank publishes
          // before that is dropped, so send distinct two-block prompts until one arrives live.
          List<KvEventMessage> live = List.of();
          int sent = 0;
          while (live.isEmpty() && sent < 20) {
            int offset = 3000 * (rank + 1) + 100 * sent;
            int[] prompt = IntStream.range(0, 40).map(i -> offset + i).toArray();
            Map<String, Object> req = new LinkedHashMap<>();
            req.put("prompt", Arrays.stream(prompt).boxed().toList());
            req.put("max_tokens", 2);
            HttpRequest r =
                HttpRequest.newBuilder(URI.create(engine.url() + "/v1/completions"))
                    .header("content-type", "application/json")
                    .header("X-data-parallel-rank", Integer.toString(rank))
                    .POST(HttpRequest.BodyPublishers.ofString(Json.write(req)))
                    .build();
            assertThat(http.send(r, HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(200);
            sent++;
            live = (rank == 0 ? p0 : p1).drain(300, 2000);
          }
          assertThat(live).as("live events of rank %d", rank).isNotEmpty();
          for (KvEventMessage m : live) {
            assertThat(KvEventDecoder.decode(m.payload()).dpRank()).isEqualTo(rank);
          }
          // Each rank numbers its own batches from 0; its replay socket is replayPort + rank.
          List<KvEventMessage> all = ZmqProbe.replay(replay[rank], 0);
          assertThat(all.get(0).seq()).isZero();
          assertThat(all.get(all.size() - 1).seq()).isEqualTo(live.get(live.size() - 1).seq());
          PrefixIndex index = new PrefixIndex(16);
          for (KvEventMessage m : all) {
            index.apply(WorkerId.of("w"), m.seq(), KvEventDecoder.decode(m.payload()));
          }
          long[] truth = hashes(obj(get(engine, "/sim/cache?dp_rank=" + rank).body()));
          assertThat(truth).hasSize(2 * sent);
          assertThat(index.viewHashes(new SourceId(WorkerId.of("w"), rank))).containsExactly(truth);
          total += truth.length;
        }
        assertThat(obj(get(engine, "/sim/cache").body()).get("blocks")).isEqualTo(total);
      }
    }
  }

  // ---------------------------------------------------------------- cancellation and errors

  @Test
  void aDisconnectedStreamIsCancelledAndItsBlocksFreed() throws Exception {
    try (SimEngine engine = start(EngineOptions.defaults().toBuilder().numBlocks(2048))) {
      Map<String, Object> req = chat(messages("Tell me a very long story."), 4000, true);
      byte[] body = Json.write(req).getBytes(StandardCharsets.UTF_8);
      try (Socket s = new Socket("127.0.0.1", engine.port())) {
        OutputStream out = s.getOutputStream();
        out.write(
            ("POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n"
                    + "content-type: application/json\r\ncontent-length: "
                    + body.length
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        InputStream in = s.getInputStream();
        StringBuilder seen = new StringBuilder();
        byte[] buf = new byte[4096];
        while (!seen.toString().contains("data: {")) {
          int n = in.read(buf);
          assertThat(n).isPositive();
          seen.append(new String(buf, 0, n, StandardCharsets.UTF_8));
        }
        assertThat(engine.stats(0).running()).isEqualTo(1);
      }
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> engine.inspect(0, core -> core.running() + core.waiting()).get() == 0);
      assertThat(engine.inspect(0, core -> core.blocks().freeBlocks()).get()).isEqualTo(2048);
      assertThat(engine.stats(0).finishedRequests()).isZero();
      await()
          .atMost(Duration.ofSeconds(2))
          .until(
              () ->
                  get(engine, "/metrics")
                      .body()
                      .contains(
                          "vllm:num_requests_running{model_name=\""
                              + MODEL
                              + "\",engine=\"0\"} 0.0"));
    }
  }

  @Test
  void errorsAndMetricsLookLikeVllms() throws Exception {
    try (SimEngine engine = start(fast())) {
      Map<String, Object> wrongModel = chat(messages("hi"), 4, false);
      wrongModel.put("model", "gpt-4");
      HttpResponse<String> r = post(engine, "/v1/chat/completions", wrongModel, null);
      assertThat(r.statusCode()).isEqualTo(404);
      Map<String, Object> err = obj(obj(r.body()).get("error"));
      assertThat(err.get("type")).isEqualTo("NotFoundError");
      assertThat((String) err.get("message")).contains("gpt-4");
      assertThat(err.get("code")).isEqualTo(404L);

      HttpRequest bad =
          HttpRequest.newBuilder(URI.create(engine.url() + "/v1/chat/completions"))
              .header("content-type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString("{\"model\": "))
              .build();
      HttpResponse<String> malformed = http.send(bad, HttpResponse.BodyHandlers.ofString());
      assertThat(malformed.statusCode()).isEqualTo(400);
      assertThat(obj(obj(malformed.body()).get("error")).get("type")).isEqualTo("BadRequestError");

      assertThat(
              post(engine, "/v1/chat/completions", chat(messages("hi"), 0, false), null)
                  .statusCode())
          .isEqualTo(400);
      assertThat(
              post(engine, "/v1/chat/completions", chat(messages("hi"), 40_000, false), null)
                  .statusCode())
          .isEqualTo(400);
      assertThat(post(engine, "/v1/chat/completions", Map.of("model", MODEL), null).statusCode())
          .isEqualTo(400);

      assertThat(get(engine, "/health").statusCode()).isEqualTo(200);
      Map<String, Object> models = obj(get(engine, "/v1/models").body());
      assertThat(first(models.get("data")).get("id")).isEqualTo(MODEL);

      post(engine, "/v1/chat/completions", chat(messages("hello there"), 4, false), null);
      String metrics = get(engine, "/metrics").body();
      for (String name :
          List.of(
              "vllm:num_requests_running",
              "vllm:num_requests_waiting",
              "vllm:gpu_cache_usage_perc",
              "vllm:prefix_cache_queries_total",
              "vllm:prefix_cache_hits_total",
              "vllm:prompt_tokens_total",
              "vllm:generation_tokens_total")) {
        assertThat(metrics)
            .contains("# TYPE " + name + " ")
            .contains(name + "{model_name=\"" + MODEL + "\"");
      }
      assertThat(metrics)
          .contains("vllm:generation_tokens_total{model_name=\"" + MODEL + "\",engine=\"0\"} 4.0");
      // Every engine metric the docs name is served.
      List<String> documented = documentedEngineMetrics();
      assertThat(documented).contains("vllm:num_requests_waiting", "sim_steps_total");
      assertThat(documented.stream().filter(n -> !metrics.contains("# TYPE " + n + " ")).toList())
          .as("engine metrics the docs name that /metrics does not serve")
          .isEmpty();
    }
  }

  // ---------------------------------------------------------------- helpers

  /** The {@code vllm:*} and {@code sim_*} names README.md and docs/ mention in backticks. */
  private static List<String> documentedEngineMetrics() throws Exception {
    java.nio.file.Path root = java.nio.file.Path.of(System.getProperty("infera.repo"));
    java.util.regex.Pattern name =
        java.util.regex.Pattern.compile("`((?:vllm:|sim_)[a-z0-9_:]+)(?:\\{[^`]*\\})?`");
    java.util.Set<String> out = new java.util.TreeSet<>();
    List<java.nio.file.Path> pages = new ArrayList<>(List.of(root.resolve("README.md")));
    try (var s = java.nio.file.Files.list(root.resolve("docs"))) {
      s.filter(f -> f.toString().endsWith(".md")).forEach(pages::add);
    }
    for (java.nio.file.Path page : pages) {
      java.util.regex.Matcher m = name.matcher(java.nio.file.Files.readString(page));
      while (m.find()) {
        out.add(m.group(1));
      }
    }
    return List.copyOf(out);
  }

  private static List<Object> messages(String question) {
    List<Object> m = new ArrayList<>();
    m.add(Map.of("role", "system", "content", SYSTEM));
    m.add(Map.of("role", "user", "content", question));
    return m;
  }

  private static int[] chatIds(List<Object> messages) throws Exception {
    return tokenizer
        .encodeChat(ChatInput.of(VllmChat.normalize(messages, tokenizer.contentFormat())))
        .ids();
  }

  private static Map<String, Object> chat(List<Object> messages, int maxTokens, boolean stream) {
    Map<String, Object> req = new LinkedHashMap<>();
    req.put("model", MODEL);
    req.put("messages", messages);
    req.put("max_tokens", maxTokens);
    req.put("stream", stream);
    return req;
  }

  private static HttpResponse<String> post(
      SimEngine engine, String path, Map<String, Object> body, String requestId) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(engine.url() + path))
            .timeout(Duration.ofSeconds(20))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(Json.write(body)));
    if (requestId != null) {
      b.header("x-request-id", requestId);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Sends one-block requests until the probe receives their events: a SUB socket's subscription
   * reaches the PUB side asynchronously, and what is published before that is dropped.
   */
  private static void primeSubscription(SimEngine engine, ZmqProbe probe) throws Exception {
    for (int attempt = 0; attempt < 20; attempt++) {
      int base = 90_000 + attempt * 100;
      Map<String, Object> req = new LinkedHashMap<>();
      req.put("prompt", IntStream.range(0, 17).map(i -> base + i).boxed().toList());
      req.put("max_tokens", 1);
      assertThat(postAsync(engine, "/v1/completions", req).get(20, TimeUnit.SECONDS).statusCode())
          .isEqualTo(200);
      if (!probe.drain(200, 1000).isEmpty()) {
        return;
      }
    }
    throw new AssertionError("no KV event reached the subscriber after 20 requests");
  }

  private static CompletableFuture<HttpResponse<String>> postAsync(
      SimEngine engine, String path, Map<String, Object> body) {
    HttpRequest r =
        HttpRequest.newBuilder(URI.create(engine.url() + path))
            .timeout(Duration.ofSeconds(20))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(Json.write(body)))
            .build();
    return http.sendAsync(r, HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(SimEngine engine, String path) throws Exception {
    HttpRequest r =
        HttpRequest.newBuilder(URI.create(engine.url() + path))
            .timeout(Duration.ofSeconds(10))
            .build();
    return http.send(r, HttpResponse.BodyHandlers.ofString());
  }

  /** Parses an SSE body: every event is {@code data: …}, the last one {@code [DONE]}. */
  private static List<Map<String, Object>> sse(String body) throws Exception {
    assertThat(body).endsWith("data: [DONE]\n\n");
    List<Map<String, Object>> out = new ArrayList<>();
    String[] events = body.split("\n\n");
    for (int i = 0; i < events.length - 1; i++) {
      assertThat(events[i]).startsWith("data: ");
      out.add(obj(events[i].substring(6)));
    }
    assertThat(events[events.length - 1]).isEqualTo("data: [DONE]");
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> obj(Object o) throws Exception {
    return (Map<String, Object>) (o instanceof String s ? Json.parse(s) : o);
  }

  private static Map<String, Object> first(Object list) throws Exception {
    return obj(((List<?>) list).get(0));
  }

  private static int[] ints(Object list) {
    return ((List<?>) list).stream().mapToInt(o -> ((Number) o).intValue()).toArray();
  }

  private static long[] hashes(Map<String, Object> cache) {
    return ((List<?>) cache.get("router_hashes"))
        .stream().mapToLong(h -> Long.parseUnsignedLong((String) h, 16)).toArray();
  }

  private static String plusOne(String endpoint) {
    int colon = endpoint.lastIndexOf(':');
    return endpoint.substring(0, colon + 1) + (Integer.parseInt(endpoint.substring(colon + 1)) + 1);
  }
}
