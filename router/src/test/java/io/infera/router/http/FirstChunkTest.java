package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.ReadStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FirstChunkTest {

  /** A stream the test pushes chunks into by hand. */
  private static final class Source implements ReadStream<Buffer> {
    Handler<Buffer> handler;
    Handler<Void> end;
    int pauses;
    int resumes;
    long fetched;

    @Override
    public ReadStream<Buffer> exceptionHandler(Handler<Throwable> h) {
      return this;
    }

    @Override
    public ReadStream<Buffer> handler(Handler<Buffer> h) {
      handler = h;
      return this;
    }

    @Override
    public ReadStream<Buffer> pause() {
      pauses++;
      return this;
    }

    @Override
    public ReadStream<Buffer> resume() {
      resumes++;
      return this;
    }

    @Override
    public ReadStream<Buffer> fetch(long amount) {
      fetched += amount;
      return this;
    }

    @Override
    public ReadStream<Buffer> endHandler(Handler<Void> h) {
      end = h;
      return this;
    }
  }

  @Test
  void runsOnceAtTheFirstNonEmptyChunkAndPassesEveryChunkOn() {
    Source src = new Source();
    int[] firsts = new int[1];
    List<String> seen = new ArrayList<>();
    ReadStream<Buffer> fc = ObservedStream.of(src, new FirstChunk(() -> firsts[0]++));
    fc.handler(b -> seen.add(b.toString()));
    src.handler.handle(Buffer.buffer());
    assertThat(firsts[0]).isZero();
    src.handler.handle(Buffer.buffer("data: a\n\n"));
    src.handler.handle(Buffer.buffer("data: b\n\n"));
    assertThat(firsts[0]).isEqualTo(1);
    assertThat(seen).containsExactly("", "data: a\n\n", "data: b\n\n");
  }

  @Test
  void backpressureAndEndGoStraightToTheSource() {
    Source src = new Source();
    ReadStream<Buffer> fc = ObservedStream.of(src, new FirstChunk(() -> {}));
    fc.pause().resume().fetch(3);
    boolean[] ended = new boolean[1];
    fc.endHandler(v -> ended[0] = true);
    src.end.handle(null);
    assertThat(src.pauses).isEqualTo(1);
    assertThat(src.resumes).isEqualTo(1);
    assertThat(src.fetched).isEqualTo(3);
    assertThat(ended[0]).isTrue();
    fc.handler(null);
    assertThat(src.handler).isNull();
  }
}
