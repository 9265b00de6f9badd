package io.infera.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.sim.sched.EngineEvent;
import io.infera.sim.sched.SimRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class EngineLoopTest {

  private EngineLoop loop;

  /** Collects what the loop delivers, recording the delivering thread. */
  private static final class Collector implements RequestSink {
    final List<EngineEvent> events = new CopyOnWriteArrayList<>();
    final List<String> threads = new CopyOnWriteArrayList<>();
    volatile String rejected;

    @Override
    public void events(List<EngineEvent> list) {
      threads.add(Thread.currentThread().getName());
      events.addAll(list);
    }

    @Override
    public void rejected(Rejection reason, String message) {
      rejected = reason + ": " + message;
    }

    boolean finished() {
      return !events.isEmpty() && events.get(events.size() - 1) instanceof EngineEvent.Finished;
    }
  }

  private EngineLoop start(EngineOptions.Builder b) {
    loop = new EngineLoop(0, b.zmqPort(-1).build(), null);
    loop.start("loop-test-r0");
    return loop;
  }

  @AfterEach
  void stop() {
    if (loop != null) {
      loop.close();
    }
  }

  @Test
  void deliversEveryTokenThenFinishedOnTheLoopThread() {
    start(EngineOptions.defaults().toBuilder().speedup(1000));
    Collector c = new Collector();
    loop.submit(new SimRequest("a", IntStream.range(0, 40).toArray(), 5, null, loop.nowMs()), c);
    await().atMost(Duration.ofSeconds(5)).until(c::finished);
    assertThat(c.events.get(0)).isInstanceOf(EngineEvent.FirstToken.class);
    assertThat(c.events.stream().filter(e -> e instanceof EngineEvent.Token))
        .extracting(e -> ((EngineEvent.Token) e).index())
        .containsExactly(0, 1, 2, 3, 4);
    EngineEvent.Finished f = (EngineEvent.Finished) c.events.get(c.events.size() - 1);
    assertThat(f.completionTokens()).isEqualTo(5);
    assertThat(f.finishReason()).isEqualTo("length");
    assertThat(c.threads).allMatch(t -> t.equals("loop-test-r0"));
    assertThat(loop.stats().finishedRequests()).isEqualTo(1);
    assertThat(loop.stats().promptTokens()).isEqualTo(40);
  }

  @Test
  void cancelStopsARequestAndFreesItsBlocks() throws Exception {
    start(EngineOptions.defaults().toBuilder().speedup(1).numBlocks(512));
    Collector c = new Collector();
    loop.submit(new SimRequest("long", IntStream.range(0, 64).toArray(), 5000, null, 0), c);
    await().atMost(Duration.ofSeconds(5)).until(() -> !c.events.isEmpty());
    loop.cancel("long");
    assertThat(loop.call(core -> core.running() + core.waiting()).get(5, TimeUnit.SECONDS))
        .isZero();
    assertThat(loop.call(core -> core.blocks().freeBlocks()).get(5, TimeUnit.SECONDS))
        .isEqualTo(512);
    int seen = c.events.size();
    Thread.sleep(50);
    assertThat(c.events).hasSize(seen);
    assertThat(c.finished()).isFalse();
  }

  @Test
  void requestsThatCanNeverFitAreRejected() {
    start(EngineOptions.defaults().toBuilder().numBlocks(4).blockSize(4));
    Collector c = new Collector();
    loop.submit(new SimRequest("big", IntStream.range(0, 64).toArray(), 1, null, 0), c);
    await().atMost(Duration.ofSeconds(5)).until(() -> c.rejected != null);
    assertThat(c.rejected).startsWith("DOES_NOT_FIT").contains("exceeds the KV cache");
  }

  @Test
  void virtualTimeRunsSpeedupTimesFaster() {
    java.util.concurrent.atomic.AtomicLong wall = new java.util.concurrent.atomic.AtomicLong(7);
    loop =
        new EngineLoop(
            0,
            EngineOptions.defaults().toBuilder().speedup(50).zmqPort(-1).build(),
            null,
            wall::get);
    loop.start("loop-test-r0");
    double t0 = loop.nowMs();
    wall.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
    assertThat(loop.nowMs() - t0).isEqualTo(5000.0);
  }

  @Test
  void closeAnswersPendingCalls() throws Exception {
    start(EngineOptions.defaults().toBuilder());
    loop.close();
    assertThat(loop.call(core -> 1)).isCompletedExceptionally();
    loop = null;
  }
}
