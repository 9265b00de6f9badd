package io.infera.router.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TransportThreadTest {

  /** Fails the steps listed as true, succeeds the others, records what the base asked of it. */
  private static final class Scripted extends TransportThread {
    final List<Boolean> failures;
    // Steps (by index) that throw an Error instead.
    volatile java.util.Set<Integer> errors = java.util.Set.of();
    final AtomicInteger steps = new AtomicInteger();
    final List<String> calls = new CopyOnWriteArrayList<>();
    volatile boolean giveUp;

    Scripted(Duration pause, Boolean... failures) {
      super("test-transport", new Backoff(pause, pause.multipliedBy(4), () -> 0.5));
      this.failures = List.of(failures);
    }

    void start() {
      startThread("test transport");
    }

    @Override
    protected void beforeLoop() {
      calls.add("before on " + Thread.currentThread().getName());
    }

    @Override
    protected boolean step() throws Exception {
      int n = steps.getAndIncrement();
      if (errors.contains(n)) {
        throw new StackOverflowError("injected at step " + n);
      }
      if (n < failures.size() && failures.get(n)) {
        throw new IllegalStateException("step " + n);
      }
      Thread.sleep(1);
      return true;
    }

    @Override
    protected boolean failed(Exception e, int failures, Duration pause) {
      calls.add("failed " + e.getMessage() + " #" + failures + " " + pause.toMillis() + "ms");
      return !giveUp;
    }

    @Override
    protected void afterLoop() {
      calls.add("after");
    }
  }

  @Test
  void failuresInARowBackOffExponentiallyAndASuccessStartsOver() {
    Scripted t = new Scripted(Duration.ofMillis(10), true, true, true, false, true);
    t.start();
    await().atMost(Duration.ofSeconds(5)).until(() -> t.steps.get() > 6);
    assertThat(t.stopThread(Duration.ofSeconds(2))).isEqualTo(TransportThread.Stopped.ENDED);
    assertThat(t.calls)
        .startsWith(
            "before on test-transport",
            "failed step 0 #1 10ms",
            "failed step 1 #2 20ms",
            "failed step 2 #3 40ms",
            "failed step 4 #1 10ms")
        .endsWith("after");
  }

  @Test
  void aFailureHandlerCanEndTheLoop() {
    Scripted t = new Scripted(Duration.ofMillis(10), true);
    t.giveUp = true;
    t.start();
    await().atMost(Duration.ofSeconds(5)).until(() -> t.calls.contains("after"));
    assertThat(t.steps.get()).isEqualTo(1);
    assertThat(t.running()).isFalse();
  }

  @Test
  void stoppingEndsAPauseAtOnce() {
    Scripted t = new Scripted(Duration.ofSeconds(30), true);
    t.start();
    await().atMost(Duration.ofSeconds(5)).until(() -> t.calls.size() == 2);
    long t0 = System.nanoTime();
    assertThat(t.stopThread(Duration.ofSeconds(10))).isEqualTo(TransportThread.Stopped.ENDED);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    assertThat(t.stopThread(Duration.ofSeconds(1))).isEqualTo(TransportThread.Stopped.ALREADY);
  }

  @Test
  void startsOnceAndNeverAfterAStop() {
    Scripted t = new Scripted(Duration.ofMillis(10));
    t.start();
    assertThatThrownBy(t::start).hasMessage("test transport already started");
    t.stopThread(Duration.ofSeconds(2));
    Scripted never = new Scripted(Duration.ofMillis(10));
    assertThat(never.stopThread(Duration.ofSeconds(1)))
        .isEqualTo(TransportThread.Stopped.NEVER_STARTED);
    assertThatThrownBy(never::start).hasMessage("test transport is closed");
  }

  @Test
  void anErrorInAStepIsCountedReportedAndTheLoopRestartsAfterABackOff() {
    Scripted t = new Scripted(Duration.ofMillis(200));
    t.errors = java.util.Set.of(2, 3);
    assertThat(t.threadProblem()).isNull();
    t.start();
    // Two crashes in a row, each restarted after a back-off.
    await().atMost(Duration.ofSeconds(5)).until(() -> t.crashes() == 1);
    assertThat(t.threadProblem())
        .contains("test-transport crashed")
        .contains("StackOverflowError: injected at step 2");
    await().atMost(Duration.ofSeconds(5)).until(() -> t.crashes() == 2);
    await().atMost(Duration.ofSeconds(5)).until(() -> t.steps.get() > 6);
    assertThat(t.threadProblem()).isNull();
    assertThat(t.calls)
        .containsExactly(
            "before on test-transport",
            "after",
            "before on test-transport",
            "after",
            "before on test-transport");
    assertThat(t.stopThread(Duration.ofSeconds(2))).isEqualTo(TransportThread.Stopped.ENDED);
    assertThat(t.threadProblem()).isNull();
    assertThat(t.crashes()).isEqualTo(2);
  }

  @Test
  void aLoopThatEndedByItselfIsAProblemUntilStopped() {
    Scripted t = new Scripted(Duration.ofMillis(10), true);
    t.giveUp = true;
    t.start();
    await().atMost(Duration.ofSeconds(5)).until(() -> t.calls.contains("after"));
    await().atMost(Duration.ofSeconds(5)).until(() -> t.threadProblem() != null);
    assertThat(t.threadProblem()).isEqualTo("thread test-transport ended");
  }
}
