package io.infera.router.parity;

import io.infera.router.routing.RequestAnalyzer.Endpoint;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One conversation of the canonical probe set: a request body as a client would send it, analysed
 * by the router and sent to the worker's {@code /tokenize} in the form its engine takes.
 *
 * @param name a short snake_case label, shown in the status and logs
 * @param endpoint {@code CHAT} (rendered with the chat template) or {@code COMPLETIONS} (a plain
 *     prompt: only the tokenizer)
 * @param body the request body (JSON)
 */
public record ProbeCase(String name, Endpoint endpoint, String body) {

  public byte[] bodyBytes() {
    return body.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The name of the plain-prompt case: a divergence there is the tokenizer's, not the template's.
   */
  public static final String TEXT = "text";

  /**
   * The canonical set: system + user, a multi-turn chat, a tool call and its result (tools
   * declared), user-only with content parts, and a plain prompt. Short (each well under a hundred
   * tokens) so that probing a fleet costs nothing measurable.
   */
  public static List<ProbeCase> canonical(String model) {
    String m = "\"model\":" + quote(model) + ",";
    return List.of(
        chat(
            "system_user",
            m
                + "\"messages\":[{\"role\":\"system\",\"content\":\"You are a concise assistant.\"},"
                + "{\"role\":\"user\",\"content\":\"Name three primary colours.\"}]"),
        chat(
            "multi_turn",
            m
                + "\"messages\":[{\"role\":\"system\",\"content\":\"You answer in one line.\"},"
                + "{\"role\":\"user\",\"content\":\"What is 2 + 2?\"},"
                + "{\"role\":\"assistant\",\"content\":\"4\"},"
                + "{\"role\":\"user\",\"content\":\"And times three?\"}]"),
        chat(
            "tool_call",
            m
                + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
                + "\"description\":\"Current weather for a city\",\"parameters\":{\"type\":"
                + "\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":"
                + "[\"city\"]}}}],"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Weather in Paris?\"},"
                + "{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"call_1\","
                + "\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":"
                + "\"{\\\"city\\\": \\\"Paris\\\"}\"}}]},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"18 C, cloudy\"}]"),
        chat(
            "content_parts",
            m
                + "\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":"
                + "\"Summarise:\"},{\"type\":\"text\",\"text\":\"The cat sat on the mat.\"}]}]"),
        new ProbeCase(
            TEXT,
            Endpoint.COMPLETIONS,
            "{" + m + "\"prompt\":\"The quick brown fox jumps over the lazy dog. 0123456789\"}"));
  }

  private static ProbeCase chat(String name, String fields) {
    return new ProbeCase(name, Endpoint.CHAT, "{" + fields + "}");
  }

  private static String quote(String s) {
    return io.infera.router.json.Json.write(s);
  }
}
