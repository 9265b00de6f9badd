package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.HttpResponseFor;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseStreamEvent;
import io.infera.router.config.PolicyName;
import io.infera.router.kv.WorkerId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The official Anthropic Java client ({@code com.anthropic:anthropic-java}) on {@code /v1/messages}
 * and the official OpenAI Java client on {@code /v1/responses}, against the real router (kv-aware,
 * ZMQ KV events) in front of two simulated vLLM engines; streamed and whole. A second request with
 * the same long system prompt goes to the worker that served the first and hits its cache — the
 * router rendered the Messages (Responses) body as the engine did.
 */
class ApiClientsIT {

  static final FleetSpec FLEET = FleetSpec.of(2, 2048);
  static final String SYSTEM =
      ("You are the support assistant of a parcel company. Answer questions about parcels,"
              + " customs declarations, delivery windows and returns. Cite the policy section you"
              + " rely on, never invent tracking numbers, and say plainly when you do not know. ")
          .repeat(10);

  static LiveStack stack;
  static AnthropicClient anthropic;
  static OpenAIClient openai;

  @BeforeAll
  static void start() throws Exception {
    stack = LiveStack.start(FLEET, 1, 3, FLEET.policy(PolicyName.KV_AWARE));
    anthropic =
        AnthropicOkHttpClient.builder()
            .baseUrl(stack.router().url())
            .apiKey("unused")
            .maxRetries(0)
            .build();
    openai =
        OpenAIOkHttpClient.builder()
            .baseUrl(stack.router().url() + "/v1")
            .apiKey("unused")
            .maxRetries(0)
            .build();
  }

  @AfterAll
  static void stop() {
    anthropic.close();
    openai.close();
    stack.close();
  }

  private static MessageCreateParams messages(String question) {
    return MessageCreateParams.builder()
        .model(BenchRouterConfig.MODEL)
        .maxTokens(6)
        .system(SYSTEM)
        .addUserMessage(question)
        .build();
  }

  @Test
  void messagesWholeThenStreamedReachTheWarmWorkerAndHitItsCache() throws Exception {
    long indexed = indexed();
    HttpResponseFor<Message> first =
        anthropic.messages().withRawResponse().create(messages("Where is parcel A?"));
    String worker = first.headers().values("x-infera-worker").get(0);
    Message m = first.parse();
    assertThat(m.content()).hasSize(1);
    assertThat(m.content().get(0).text().orElseThrow().text()).isNotBlank();
    assertThat(m.usage().outputTokens()).isEqualTo(6);
    assertThat(m.stopReason())
        .hasValueSatisfying(r -> assertThat(r.asString()).isEqualTo("max_tokens"));
    settle(worker, indexed + 20);

    HttpResponseFor<StreamResponse<RawMessageStreamEvent>> second =
        anthropic.messages().withRawResponse().createStreaming(messages("Where is parcel B?"));
    assertThat(second.headers().values("x-infera-worker")).containsExactly(worker);
    int hitBlocks = Integer.parseInt(second.headers().values("x-infera-cache-hit-blocks").get(0));
    assertThat(hitBlocks)
        .as("system prompt blocks the router found cached")
        .isGreaterThanOrEqualTo(20);
    List<String> types = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    long[] cachedRead = {-1};
    try (StreamResponse<RawMessageStreamEvent> events = second.parse()) {
      events.stream()
          .forEach(
              e -> {
                e.messageStart().ifPresent(s -> types.add("message_start"));
                e.contentBlockStart().ifPresent(s -> types.add("content_block_start"));
                e.contentBlockDelta()
                    .ifPresent(
                        d -> {
                          types.add("content_block_delta");
                          d.delta().text().ifPresent(t -> text.append(t.text()));
                        });
                e.contentBlockStop().ifPresent(s -> types.add("content_block_stop"));
                e.messageDelta()
                    .ifPresent(
                        d -> {
                          types.add("message_delta");
                          cachedRead[0] = d.usage().cacheReadInputTokens().orElse(-1L);
                        });
                e.messageStop().ifPresent(s -> types.add("message_stop"));
              });
    }
    assertThat(types.stream().distinct().collect(Collectors.toList()))
        .containsExactly(
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop");
    assertThat(text.toString()).isNotBlank();
    // The engine's own report: the shared prefix was computed once.
    assertThat(cachedRead[0]).isGreaterThanOrEqualTo(20L * FLEET.blockSize());
  }

  @Test
  void messagesErrorsReachTheClientAsAnthropicErrors() {
    MessageCreateParams unknownModel =
        MessageCreateParams.builder()
            .model("claude-not-here")
            .maxTokens(4)
            .addUserMessage("hi")
            .build();
    assertThatThrownBy(() -> anthropic.messages().create(unknownModel))
        .isInstanceOfSatisfying(
            AnthropicServiceException.class,
            e -> {
              assertThat(e.statusCode()).isEqualTo(404);
              assertThat(e.getMessage()).contains("claude-not-here");
            });
  }

  private static ResponseCreateParams responses(String question) {
    return ResponseCreateParams.builder()
        .model(BenchRouterConfig.MODEL)
        // a prompt of its own: the Messages test's blocks are not this test's
        .instructions("Responses desk. " + SYSTEM)
        .input(question)
        .maxOutputTokens(5L)
        .build();
  }

  @Test
  void responsesWholeThenStreamedReachTheWarmWorker() throws Exception {
    long indexed = indexed();
    var first = openai.responses().withRawResponse().create(responses("How do returns work?"));
    String worker = first.headers().values("x-infera-worker").get(0);
    Response r = first.parse();
    String text =
        r.output()
            .get(0)
            .message()
            .orElseThrow()
            .content()
            .get(0)
            .outputText()
            .orElseThrow()
            .text();
    assertThat(text).isNotBlank();
    assertThat(r.usage().orElseThrow().outputTokens()).isEqualTo(5);
    settle(worker, indexed + 20);

    var second =
        openai.responses().withRawResponse().createStreaming(responses("And customs forms?"));
    assertThat(second.headers().values("x-infera-worker")).containsExactly(worker);
    assertThat(Integer.parseInt(second.headers().values("x-infera-cache-hit-blocks").get(0)))
        .isGreaterThanOrEqualTo(20);
    StringBuilder streamed = new StringBuilder();
    long[] cached = {-1};
    try (com.openai.core.http.StreamResponse<ResponseStreamEvent> events = second.parse()) {
      events.stream()
          .forEach(
              e -> {
                e.outputTextDelta().ifPresent(d -> streamed.append(d.delta()));
                e.incomplete()
                    .ifPresent(
                        c ->
                            cached[0] =
                                c.response()
                                    .usage()
                                    .orElseThrow()
                                    .inputTokensDetails()
                                    .cachedTokens());
                e.completed()
                    .ifPresent(
                        c ->
                            cached[0] =
                                c.response()
                                    .usage()
                                    .orElseThrow()
                                    .inputTokensDetails()
                                    .cachedTokens());
              });
    }
    assertThat(streamed.toString()).isNotBlank();
    assertThat(cached[0]).isGreaterThanOrEqualTo(20L * FLEET.blockSize());
  }

  /** Blocks the router's index holds over all workers. */
  private static long indexed() {
    return stack.router().runtime().index().stats().blocksPerWorker().values().stream()
        .mapToLong(Long::longValue)
        .sum();
  }

  /**
   * Waits until the index holds {@code blocks} blocks and nothing is in flight on {@code worker}.
   */
  private static void settle(String worker, long blocks) throws Exception {
    WorkerId id = WorkerId.of(worker);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      stack.router().runtime().ingest().flush().get(5, TimeUnit.SECONDS);
      if (stack.router().runtime().load().load(id).inFlight() == 0 && indexed() >= blocks) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("router did not settle on " + worker + ": " + indexed() + " blocks");
  }
}
