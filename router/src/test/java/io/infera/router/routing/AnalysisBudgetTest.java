package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AnalysisBudgetTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<AnalysisBudget> budgets = new ArrayList<>();
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void close() {
    release.countDown();
    budgets.forEach(AnalysisBudget::close);
  }

  private AnalysisBudget budget(long bytes, int threads, int queue) {
    AnalysisBudget b = new AnalysisBudget(bytes, threads, queue);
    b.bindTo(registry);
    budgets.add(b);
    return b;
  }

  private CompletableFuture<String> blocked(AnalysisBudget b, long bytes) {
    return b.submit(
        bytes,
        () -> false,
        () -> {
          try {
            release.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return "done";
        },
        "gone");
  }

  private static RoutingFailure refusal(CompletableFuture<?> f) {
    assertThat(f).isCompletedExceptionally();
    try {
      f.get();
    } catch (ExecutionException e) {
      return ((AnalysisBudget.Refused) e.getCause()).failure();
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
    throw new AssertionError("not refused");
  }

  private double rejected(String budget) {
    return registry.find("infera.analysis.rejected").tag("budget", budget).counter().count();
  }

  @Test
  void bytesUpToTheLimitAreAdmittedAndOneMoreIsRefused() throws Exception {
    AnalysisBudget b = budget(100, 4, 10);
    CompletableFuture<String> first = blocked(b, 60);
    CompletableFuture<String> second = blocked(b, 40);
    assertThat(b.inFlightBytes()).isEqualTo(100);
    RoutingFailure f = refusal(blocked(b, 1));
    assertThat(f).isInstanceOf(RoutingFailure.AnalysisBudgetFull.class);
    assertThat(f.message()).contains("analysisInFlightBytes=100");
    assertThat(rejected("in_flight_bytes")).isEqualTo(1);
    release.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("done");
    assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("done");
    awaitZero(b);
    assertThat(b.submit(100, () -> false, () -> "again", null).get(10, TimeUnit.SECONDS))
        .isEqualTo("again");
  }

  @Test
  void oneRequestAloneAlwaysFitsEvenAboveTheLimit() throws Exception {
    AnalysisBudget b = budget(100, 2, 2);
    assertThat(b.submit(10_000, () -> false, () -> "big", null).get(10, TimeUnit.SECONDS))
        .isEqualTo("big");
    CompletableFuture<String> hold = blocked(b, 10);
    assertThat(refusal(b.submit(10_000, () -> false, () -> "big", null)))
        .isInstanceOf(RoutingFailure.AnalysisBudgetFull.class);
    release.countDown();
    hold.get(10, TimeUnit.SECONDS);
  }

  @Test
  void threadsPlusQueueAreAdmittedAndTheNextIsRefused() throws Exception {
    AnalysisBudget b = budget(1 << 20, 1, 2);
    List<CompletableFuture<String>> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(blocked(b, 1));
    }
    RoutingFailure f = refusal(blocked(b, 1));
    assertThat(f.message()).contains("analysisQueue=2");
    assertThat(rejected("queue")).isEqualTo(1);
    // the refused request's bytes are not held
    assertThat(b.inFlightBytes()).isEqualTo(3);
    assertThat(b.inFlight()).isEqualTo(3);
    release.countDown();
    for (CompletableFuture<String> h : held) {
      assertThat(h.get(10, TimeUnit.SECONDS)).isEqualTo("done");
    }
    awaitZero(b);
  }

  @Test
  void aZeroQueueRefusesAsSoonAsEveryThreadIsBusy() {
    AnalysisBudget b = budget(1 << 20, 1, 0);
    blocked(b, 1);
    assertThat(refusal(blocked(b, 1))).isInstanceOf(RoutingFailure.AnalysisBudgetFull.class);
  }

  @Test
  void aQueuedRequestWhoseClientLeftIsNeverAnalysedAndReleasesItsBudget() throws Exception {
    AnalysisBudget b = budget(1 << 20, 1, 4);
    CompletableFuture<String> running = blocked(b, 10);
    AtomicBoolean gone = new AtomicBoolean();
    AtomicInteger ran = new AtomicInteger();
    CompletableFuture<String> queued =
        b.submit(
            1000,
            gone::get,
            () -> {
              ran.incrementAndGet();
              return "analysed";
            },
            "gone");
    assertThat(b.inFlightBytes()).isEqualTo(1010);
    gone.set(true);
    release.countDown();
    assertThat(queued.get(10, TimeUnit.SECONDS)).isEqualTo("gone");
    assertThat(running.get(10, TimeUnit.SECONDS)).isEqualTo("done");
    assertThat(ran).hasValue(0);
    assertThat(registry.find("infera.analysis.abandoned").counter().count()).isEqualTo(1);
    awaitZero(b);
  }

  @Test
  void aFailingAnalysisReleasesItsBudget() throws Exception {
    AnalysisBudget b = budget(100, 1, 1);
    CompletableFuture<String> f =
        b.submit(
            100,
            () -> false,
            () -> {
              throw new IllegalStateException("boom");
            },
            null);
    try {
      f.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).hasMessage("boom");
    }
    awaitZero(b);
    assertThat(registry.find("infera.analysis.inflight.bytes").gauge().value()).isZero();
  }

  private static void awaitZero(AnalysisBudget b) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while ((b.inFlightBytes() != 0 || b.inFlight() != 0) && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(b.inFlightBytes()).isZero();
    assertThat(b.inFlight()).isZero();
  }
}
