package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The official OpenAI Java client against the router, non-streaming and streaming. */
class OpenAiClientIT {

  static Vertx vertx;
  static StubEngine engine;
  static RouterHarness router;
  static OpenAIClient client;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    engine = new StubEngine(vertx, "w0");
    router = RouterHarness.start(vertx, List.of(engine), null);
    await().atMost(Duration.ofSeconds(10)).until(() -> router.get("/ready").statusCode() == 200);
    client =
        OpenAIOkHttpClient.builder()
            .baseUrl(router.url("/v1"))
            .apiKey("unused")
            .maxRetries(0)
            .build();
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    router.close();
    engine.close();
    vertx.close();
  }

  private static ChatCompletionCreateParams params() {
    return ChatCompletionCreateParams.builder()
        .model("Qwen/Qwen3-0.6B")
        .addSystemMessage("You are terse.")
        .addUserMessage("Say hello.")
        .build();
  }

  @Test
  void nonStreamingChatCompletion() {
    ChatCompletion c = client.chat().completions().create(params());
    assertThat(c.choices()).hasSize(1);
    assertThat(c.choices().get(0).message().content()).hasValue("hello from w0");
    assertThat(engine.seen()).isNotEmpty();
    assertThat(engine.seen().get(engine.seen().size() - 1).body()).contains("You are terse.");
  }

  @Test
  void streamingChatCompletion() {
    try (StreamResponse<ChatCompletionChunk> stream =
        client.chat().completions().createStreaming(params())) {
      String text =
          stream.stream()
              .flatMap(chunk -> chunk.choices().stream())
              .map(choice -> choice.delta().content().orElse(""))
              .collect(Collectors.joining());
      assertThat(text).isEqualTo("w0-0w0-1w0-2");
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> router.inFlight() == 0);
  }

  @Test
  void modelsAreListed() {
    var models = client.models().list();
    assertThat(models.data()).extracting(m -> m.id()).contains("Qwen/Qwen3-0.6B", "sql-lora");
  }
}
