package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.json.Json;
import io.infera.router.routing.RequestAnalyzer.Endpoint;
import io.infera.router.routing.RequestAnalyzer.Result;
import io.infera.router.tokenize.AnthropicChat;
import io.infera.router.tokenize.ResponsesChat;
import io.infera.router.tokenize.TestTokenizers;
import io.infera.router.tokenize.VllmChat;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * Anthropic Messages, Responses and pass-through bodies are outside input: a seeded run of {@value
 * #BODIES} bodies mutated from valid ones (the mutations of {@link RequestBodyFuzzTest}) through
 * the whole analysis, and a property over arbitrary JSON trees in the places a Messages or
 * Responses body holds structure. Every body is routed (possibly by load) or a client error;
 * nothing escapes.
 */
class ApiBodyFuzzTest {

  static final int BODIES = 30_000;
  private static final long SEED = Long.getLong("infera.fuzz.seed", 0xA17E5EEDL);

  private static final List<String> MESSAGES =
      List.of(
          "{\"model\":\"m\",\"max_tokens\":16,\"system\":\"Be brief.\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello there\"}]}",
          "{\"model\":\"m\",\"max_tokens\":8,\"stream\":true,\"system\":[{\"type\":\"text\",\"text\":\"x-anthropic-billing-header: a\"},"
              + "{\"type\":\"text\",\"text\":\"You help.\"}],\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"look\"},"
              + "{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"AAAA\"}}]},"
              + "{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"hm\"},{\"type\":\"tool_use\",\"id\":\"t\","
              + "\"name\":\"f\",\"input\":{\"a\":[1,2]}}]},{\"role\":\"system\",\"content\":\"inline\"},"
              + "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t\",\"content\":[{\"type\":\"text\",\"text\":\"r\"},"
              + "{\"type\":\"image\",\"source\":{\"type\":\"url\",\"url\":\"https://e/x.png\"}},{\"type\":\"tool_reference\",\"tool_name\":\"g\"}]}]}],"
              + "\"tools\":[{\"name\":\"f\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\"}}],\"chat_template_kwargs\":{\"enable_thinking\":false}}");

  private static final List<String> RESPONSES =
      List.of(
          "{\"model\":\"m\",\"instructions\":\"Be brief.\",\"input\":\"Hello\",\"max_output_tokens\":8}",
          "{\"model\":\"m\",\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"q\"}]},"
              + "{\"type\":\"reasoning\",\"content\":[{\"type\":\"reasoning_text\",\"text\":\"r\"}]},"
              + "{\"type\":\"function_call\",\"call_id\":\"c\",\"name\":\"f\",\"arguments\":\"{}\"},"
              + "{\"type\":\"function_call_output\",\"call_id\":\"c\",\"output\":\"o\"},"
              + "{\"type\":\"message\",\"role\":\"assistant\",\"status\":\"incomplete\",\"content\":[{\"type\":\"output_text\",\"text\":\"a\"}]}],"
              + "\"tools\":[{\"type\":\"function\",\"name\":\"f\",\"parameters\":{}}],\"reasoning\":{\"effort\":\"low\"},\"stream\":true}");

  private static final String PASS_THROUGH =
      "{\"model\":\"m\",\"input\":[\"a\",\"b\"],\"prompt\":\"x\",\"tokens\":[1,2,3]}";

  private static final RouterConfig CFG;

  static {
    try {
      CFG =
          ConfigLoader.parse(
              "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
                  + "discovery: {workers: [{id: w, url: 'http://x:1'}]}\n");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void mutatedBodiesAreRoutedOrClientErrorsAndNothingEscapes() {
    RequestAnalyzer analyzer = new RequestAnalyzer(CFG, TestTokenizers.qwen3(), null);
    Random rng = new Random(SEED);
    Map<String, Integer> outcomes = new TreeMap<>();
    for (int i = 0; i < BODIES; i++) {
      int pick = rng.nextInt(5);
      Endpoint endpoint =
          switch (pick) {
            case 0, 1 -> Endpoint.MESSAGES;
            case 2, 3 -> Endpoint.RESPONSES;
            default -> Endpoint.values()[4 + rng.nextInt(3)];
          };
      String seed =
          switch (endpoint) {
            case MESSAGES -> MESSAGES.get(rng.nextInt(MESSAGES.size()));
            case RESPONSES -> RESPONSES.get(rng.nextInt(RESPONSES.size()));
            default -> PASS_THROUGH;
          };
      byte[] body = RequestBodyFuzzTest.mutate(rng, seed);
      Result r;
      try {
        r = analyzer.analyze(body, endpoint);
      } catch (RuntimeException | StackOverflowError e) {
        throw new AssertionError(
            "body #"
                + i
                + " (seed "
                + SEED
                + ", "
                + endpoint
                + ") escaped: "
                + new String(body, StandardCharsets.UTF_8),
            e);
      }
      String outcome;
      if (r instanceof Result.Ok ok) {
        String why = ok.analyzed().tokenizeFailure();
        outcome = endpoint + " " + (why == null ? "routed" : "by load (" + why + ")");
      } else {
        RoutingFailure f = ((Result.Failed) r).failure();
        assertThat(f.kind())
            .isIn(RoutingFailure.Kind.BAD_REQUEST, RoutingFailure.Kind.UNKNOWN_MODEL);
        outcome = endpoint + " " + f.kind();
      }
      outcomes.merge(outcome, 1, Integer::sum);
    }
    System.out.printf("ApiBodyFuzzTest: %d bodies, seed %d: %s%n", BODIES, SEED, outcomes);
    assertThat(outcomes.keySet())
        .contains(
            "MESSAGES routed", "MESSAGES BAD_REQUEST", "RESPONSES routed", "RESPONSES BAD_REQUEST");
    assertThat(outcomes.keySet()).noneMatch(k -> k.contains("tokenizer_error"));
  }

  // ------------------------------------------------------------------ property over JSON trees

  @Provide
  Arbitrary<Object> json() {
    return Arbitraries.recursive(
        () ->
            Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(12).map(s -> (Object) s),
                Arbitraries.of(
                    "text",
                    "image",
                    "tool_use",
                    "tool_result",
                    "thinking",
                    "system",
                    "user",
                    "assistant",
                    "message",
                    "reasoning",
                    "function_call",
                    "function_call_output",
                    "url",
                    "base64",
                    "tool_reference",
                    "x-anthropic-billing-header"),
                Arbitraries.longs().between(-3, 3).map(n -> (Object) n),
                Arbitraries.of(true, false),
                Arbitraries.just(null)),
        this::container,
        4);
  }

  private Arbitrary<Object> container(Arbitrary<Object> inner) {
    Arbitrary<String> keys =
        Arbitraries.of(
            "type",
            "role",
            "content",
            "text",
            "source",
            "data",
            "url",
            "media_type",
            "thinking",
            "id",
            "name",
            "input",
            "tool_use_id",
            "tool_name",
            "summary",
            "output",
            "call_id",
            "arguments",
            "status",
            "messages",
            "system",
            "tools",
            "input_schema",
            "description");
    return Arbitraries.oneOf(
        inner.list().ofMaxSize(4).map(l -> (Object) new ArrayList<>(l)),
        Arbitraries.maps(keys, inner).ofMaxSize(5).map(m -> (Object) new LinkedHashMap<>(m)));
  }

  @Property(tries = 3000)
  void conversionsEitherConvertOrNameTheProblem(
      @ForAll("json") Object messages,
      @ForAll("json") Object system,
      @ForAll("json") Object input) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("messages", messages);
    body.put("system", system);
    body.put("input", input);
    String before = Json.write(body);
    for (AnthropicChat.InlineSystem mode : AnthropicChat.InlineSystem.values()) {
      try {
        Map<String, Object> chat = AnthropicChat.toChatRequest(body, mode);
        assertThat(chat.get("messages")).isInstanceOf(List.class);
        Json.write(chat); // writable
      } catch (VllmChat.InvalidMessage e) {
        assertThat(e.getMessage()).isNotBlank();
      }
    }
    try {
      ResponsesChat.toChatRequest(body);
    } catch (VllmChat.InvalidMessage e) {
      assertThat(e.getMessage()).isNotBlank();
    }
    assertThat(Json.write(body)).as("the input is not changed").isEqualTo(before);
  }
}
