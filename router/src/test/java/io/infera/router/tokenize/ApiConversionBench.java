package io.infera.router.tokenize;

import io.infera.router.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-request cost the Messages and Responses endpoints add before rendering: converting a
 * 40-turn agent conversation (system blocks, text, tool_use / tool_result pairs, an inline system
 * message) to its chat request, and a 40-item Responses input likewise. Rendering and tokenizing
 * are the chat path's ({@link ChatTokenizeBench}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ApiConversionBench {

  Map<String, Object> messages;
  Map<String, Object> responses;

  @Setup
  public void setup() {
    String filler = "Line of tool output with some paths /src/main/java and numbers 12345. ";
    List<Object> turns = new ArrayList<>();
    List<Object> items = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      turns.add(
          Map.of(
              "role",
              "user",
              "content",
              i == 0
                  ? List.of(Map.of("type", "text", "text", "Fix the failing test, please."))
                  : List.of(
                      Map.of(
                          "type",
                          "tool_result",
                          "tool_use_id",
                          "t" + (i - 1),
                          "content",
                          List.of(Map.of("type", "text", "text", filler.repeat(20)))))));
      turns.add(
          Map.of(
              "role",
              "assistant",
              "content",
              List.of(
                  Map.of("type", "text", "text", "Let me look at file " + i + "."),
                  Map.of(
                      "type",
                      "tool_use",
                      "id",
                      "t" + i,
                      "name",
                      "read_file",
                      "input",
                      Map.of("path", "/src/F" + i + ".java")))));
      items.add(Map.of("role", "user", "content", "Question " + i + ": " + filler.repeat(5)));
      items.add(
          Map.of(
              "type",
              "function_call",
              "call_id",
              "c" + i,
              "name",
              "read_file",
              "arguments",
              "{\"path\":\"/src/F" + i + ".java\"}"));
    }
    turns.add(Map.of("role", "system", "content", "Reminder: run the tests."));
    messages = new LinkedHashMap<>();
    messages.put("model", "m");
    messages.put("max_tokens", 1024);
    messages.put(
        "system",
        List.of(
            Map.of("type", "text", "text", "x-anthropic-billing-header: cc_version=2"),
            Map.of("type", "text", "text", "You are a coding agent. ".repeat(200))));
    messages.put("messages", turns);
    messages.put(
        "tools",
        List.of(
            Map.of(
                "name",
                "read_file",
                "description",
                "Read a file",
                "input_schema",
                Map.of("type", "object"))));
    responses = new LinkedHashMap<>();
    responses.put("instructions", "You are a coding agent. ".repeat(200));
    responses.put("input", items);
    System.out.printf(
        "%nmessages body %d chars, responses body %d chars%n",
        Json.write(messages).length(), Json.write(responses).length());
  }

  @Benchmark
  public Object anthropicToChat() throws Exception {
    return AnthropicChat.toChatRequest(messages, AnthropicChat.InlineSystem.PRESERVE);
  }

  @Benchmark
  public Object responsesToChat() throws Exception {
    return ResponsesChat.toChatRequest(responses);
  }
}
