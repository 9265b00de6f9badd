package io.infera.router.http;

import io.infera.router.accuracy.CachedTokens;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the index-accuracy tap adds to one answer on the proxy path: a streamed chat answer of
 * {@code tokens} SSE chunks (one network buffer each) ending in the {@code include_usage} chunk and
 * {@code [DONE]}, and a non-streaming answer of the same text; per whole answer, tap plus parse.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class UsageTapBench {

  @Param({"16", "256"})
  int tokens;

  List<Buffer> chunks;
  Buffer whole;

  @Setup
  public void setup() {
    chunks = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < tokens; i++) {
      chunks.add(
          Buffer.buffer(
              "data: {\"id\":\"chatcmpl-7f3a\",\"object\":\"chat.completion.chunk\",\"created\":"
                  + "1767225600,\"model\":\"qwen3\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
                  + "\" tok"
                  + i
                  + "\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"));
      text.append(" tok").append(i);
    }
    chunks.add(
        Buffer.buffer(
            "data: {\"id\":\"chatcmpl-7f3a\",\"object\":\"chat.completion.chunk\",\"created\":"
                + "1767225600,\"model\":\"qwen3\",\"choices\":[],\"usage\":{\"prompt_tokens\":812,"
                + "\"total_tokens\":1068,\"completion_tokens\":256,\"prompt_tokens_details\":"
                + "{\"cached_tokens\":768}}}\n\ndata: [DONE]\n\n"));
    whole =
        Buffer.buffer(
            ("{\"id\":\"chatcmpl-7f3a\",\"object\":\"chat.completion\",\"created\":1767225600,"
                    + "\"model\":\"qwen3\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
                    + "\"assistant\",\"content\":\""
                    + text
                    + "\"},\"logprobs\":null,\"finish_reason\":\"length\"}],\"usage\":"
                    + "{\"prompt_tokens\":812,\"total_tokens\":1068,\"completion_tokens\":256,"
                    + "\"prompt_tokens_details\":{\"cached_tokens\":768}},\"prompt_logprobs\":null}")
                .getBytes(StandardCharsets.UTF_8));
  }

  /** The baseline: touching every buffer once, as the pipe does. */
  @Benchmark
  public long streamUntapped() {
    long n = 0;
    for (Buffer b : chunks) {
      n += b.length();
    }
    return n;
  }

  @Benchmark
  public CachedTokens streamTapped() {
    UsageTap tap = UsageTap.of(200, "text/event-stream");
    for (Buffer b : chunks) {
      tap.chunk(b);
    }
    return tap.result();
  }

  @Benchmark
  public CachedTokens jsonTapped() {
    UsageTap tap = UsageTap.of(200, "application/json");
    tap.chunk(whole);
    return tap.result();
  }
}
