package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.accuracy.CachedTokens;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The proxy-path tap: split chunks, its budgets at and past their limits, what it taps. */
class UsageTapTest {

  private static final String USAGE =
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":32}}}\n\n"
          + "data: [DONE]\n\n";

  private static void feed(UsageTap tap, byte[] b, long seed) {
    Random r = new Random(seed);
    int i = 0;
    while (i < b.length) {
      int n = Math.min(b.length - i, 1 + r.nextInt(40));
      tap.chunk(Buffer.buffer().appendBytes(b, i, n));
      i += n;
    }
  }

  /** A read stream the test drives by hand, recording what the watcher asks of it. */
  static final class HandStream implements io.vertx.core.streams.ReadStream<Buffer> {
    io.vertx.core.Handler<Buffer> handler;
    io.vertx.core.Handler<Void> end;
    io.vertx.core.Handler<Throwable> error;
    final java.util.List<String> calls = new java.util.ArrayList<>();

    @Override
    public HandStream exceptionHandler(io.vertx.core.Handler<Throwable> h) {
      error = h;
      return this;
    }

    @Override
    public HandStream handler(io.vertx.core.Handler<Buffer> h) {
      handler = h;
      return this;
    }

    @Override
    public HandStream pause() {
      calls.add("pause");
      return this;
    }

    @Override
    public HandStream resume() {
      calls.add("resume");
      return this;
    }

    @Override
    public HandStream fetch(long amount) {
      calls.add("fetch " + amount);
      return this;
    }

    @Override
    public HandStream endHandler(io.vertx.core.Handler<Void> h) {
      end = h;
      return this;
    }
  }

  @Test
  void theWatchedStreamHandsOnTheSameBuffersAndDelegatesFlowControl() {
    HandStream in = new HandStream();
    UsageTap tap = UsageTap.of(200, "text/event-stream");
    var watched = ObservedStream.of(in, tap);
    java.util.List<Buffer> got = new java.util.ArrayList<>();
    boolean[] ended = {false};
    watched.handler(got::add).endHandler(v -> ended[0] = true).exceptionHandler(e -> {});
    watched.pause().fetch(3).resume();
    byte[] body = USAGE.getBytes(StandardCharsets.UTF_8);
    java.util.List<Buffer> sent = new java.util.ArrayList<>();
    for (int i = 0; i < body.length; i += 7) {
      Buffer b = Buffer.buffer().appendBytes(body, i, Math.min(7, body.length - i));
      sent.add(b);
      in.handler.handle(b);
    }
    in.end.handle(null);
    assertThat(got).hasSize(sent.size());
    for (int i = 0; i < sent.size(); i++) {
      assertThat(got.get(i)).isSameAs(sent.get(i)); // the very buffers, unchanged
    }
    assertThat(
            Buffer.buffer()
                .appendBuffer(got.stream().reduce(Buffer.buffer(), Buffer::appendBuffer))
                .getBytes())
        .isEqualTo(body);
    assertThat(ended[0]).isTrue();
    assertThat(in.calls).containsExactly("pause", "fetch 3", "resume");
    assertThat(in.error).isNotNull();
    assertThat(tap.result()).isEqualTo(new CachedTokens.Reported(32));
    watched.handler(null);
    assertThat(in.handler).isNull();
  }

  @Test
  void tapsOnlySuccessfulJsonAndSse() {
    assertThat(UsageTap.of(200, "text/event-stream; charset=utf-8")).isNotNull();
    assertThat(UsageTap.of(200, "application/json")).isNotNull();
    assertThat(UsageTap.of(200, "text/plain")).isNull();
    assertThat(UsageTap.of(200, null)).isNull();
    assertThat(UsageTap.of(400, "application/json")).isNull();
  }

  @Test
  void splitChunksAnywhere() {
    byte[] body =
        ("data: {\"choices\":[{\"delta\":{}}]}\n\n" + USAGE).getBytes(StandardCharsets.UTF_8);
    for (long seed = 0; seed < 50; seed++) {
      UsageTap tap = UsageTap.of(200, "text/event-stream");
      feed(tap, body, seed);
      assertThat(tap.result()).isEqualTo(new CachedTokens.Reported(32));
    }
  }

  @Test
  void aLongStreamKeepsOnlyItsTail() {
    StringBuilder s = new StringBuilder();
    while (s.length() < 10 * UsageTap.SSE_TAIL_BYTES) {
      s.append("data: {\"choices\":[{\"delta\":{\"content\":\"lorem ipsum\"}}]}\n\n");
    }
    s.append(USAGE);
    byte[] b = s.toString().getBytes(StandardCharsets.UTF_8);
    UsageTap tap = UsageTap.of(200, "text/event-stream");
    feed(tap, b, 1);
    assertThat(tap.result()).isEqualTo(new CachedTokens.Reported(32));
    // one buffer larger than the whole budget
    UsageTap big = UsageTap.of(200, "text/event-stream");
    big.chunk(Buffer.buffer(b));
    assertThat(big.result()).isEqualTo(new CachedTokens.Reported(32));
  }

  @Test
  void theTailRingWrapsAtAnyChunkSize() {
    StringBuilder s = new StringBuilder();
    int i = 0;
    while (s.length() < 5 * UsageTap.SSE_TAIL_BYTES) {
      s.append("data: {\"choices\":[{\"delta\":{\"content\":\"t").append(i++).append("\"}}]}\n\n");
    }
    s.append(USAGE);
    byte[] b = s.toString().getBytes(StandardCharsets.UTF_8);
    for (long seed = 0; seed < 40; seed++) {
      Random r = new Random(seed);
      UsageTap tap = UsageTap.of(200, "text/event-stream");
      int at = 0;
      while (at < b.length) {
        int max = r.nextBoolean() ? 64 : 3 * UsageTap.SSE_TAIL_BYTES;
        int n = Math.min(b.length - at, 1 + r.nextInt(max));
        tap.chunk(Buffer.buffer().appendBytes(b, at, n));
        at += n;
      }
      assertThat(tap.result()).as("seed %d", seed).isEqualTo(new CachedTokens.Reported(32));
    }
  }

  @Test
  void aUsageEventLongerThanTheTailIsNotRead() {
    String pad = "x".repeat(UsageTap.SSE_TAIL_BYTES);
    byte[] b =
        ("data: {\"pad\":\""
                + pad
                + "\",\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":32}}}\n\n")
            .getBytes(StandardCharsets.UTF_8);
    UsageTap tap = UsageTap.of(200, "text/event-stream");
    feed(tap, b, 2);
    assertThat(tap.result()).isEqualTo(CachedTokens.NO_USAGE);
  }

  private static byte[] jsonOf(int size) {
    String head = "{\"pad\":\"";
    String tail = "\",\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":5}}}";
    return (head + "y".repeat(size - head.length() - tail.length()) + tail)
        .getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aJsonAnswerAtItsBudgetIsReadOnePastItIsTooLarge() {
    byte[] at = jsonOf(UsageTap.MAX_JSON_BYTES);
    assertThat(at).hasSize(UsageTap.MAX_JSON_BYTES);
    UsageTap tap = UsageTap.of(200, "application/json");
    feed(tap, at, 3);
    assertThat(tap.result()).isEqualTo(new CachedTokens.Reported(5));

    UsageTap past = UsageTap.of(200, "application/json");
    feed(past, jsonOf(UsageTap.MAX_JSON_BYTES + 1), 4);
    assertThat(past.result()).isEqualTo(CachedTokens.TOO_LARGE);
  }
}
