package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.sim.bench.report.RequestResult;
import io.infera.sim.workload.Session;
import io.infera.sim.workload.Turn;
import io.infera.sim.workload.Workload;
import io.infera.sim.workload.WorkloadStats;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LoadGeneratorTest {

  /** Simulated time runs 100× the wall clock: 500 ms of thinking is 5 ms of test. */
  static final double SPEEDUP = 100;

  static Session session(String id, double startMs, int turns, double thinkMs) {
    List<Turn> ts = new ArrayList<>();
    for (int k = 0; k < turns; k++) {
      ts.add(Turn.of(new int[] {1100 + k}, 4, k == 0 ? 0 : thinkMs));
    }
    return new Session(id, startMs, new int[] {1001, 1002}, "", ts, id);
  }

  static Workload workload(Session... sessions) {
    List<Session> list = List.of(sessions);
    return new Workload() {
      @Override
      public String name() {
        return "test";
      }

      @Override
      public List<Session> sessions() {
        return list;
      }

      @Override
      public WorkloadStats stats() {
        return WorkloadStats.of(list, 0);
      }
    };
  }

  /** What the fake sender saw of one request. */
  record Sent(String session, int turn, int[] prompt, double atMs) {}

  static RequestResult ok(Conversation c) {
    return RequestResult.ok(
        "test", 1, c.session().id(), c.turn(), "w0", 0, 1, 1, List.of(), 0, 0, 1);
  }

  @Test
  void sendsEveryTurnInOrderWithItsContextAndThinkTime() throws Exception {
    SimClock clock = new SimClock(SPEEDUP);
    List<Sent> sent = Collections.synchronizedList(new ArrayList<>());
    Map<String, Double> answeredAt = new ConcurrentHashMap<>();
    Set<String> inFlight = ConcurrentHashMap.newKeySet();
    AtomicInteger overlapping = new AtomicInteger();
    List<Double> shortThinks = Collections.synchronizedList(new ArrayList<>());
    LoadGenerator.Outcome out =
        new LoadGenerator(clock, null)
            .run(
                workload(session("a", 0, 3, 500), session("b", 200, 2, 300)),
                c -> {
                  String key = c.session().id();
                  if (!inFlight.add(key)) {
                    overlapping.incrementAndGet();
                  }
                  double now = clock.nowMs();
                  Double prev = answeredAt.get(key);
                  if (prev != null) {
                    // The turn waits its think time after the previous answer (recorded here:
                    // an assertion failing on a pool thread would hang the run).
                    if (now - prev < c.current().thinkMs() - 1) {
                      shortThinks.add(now - prev);
                    }
                  }
                  sent.add(new Sent(key, c.turn(), c.prompt(), now));
                  c.answered(new int[] {1900 + c.turn()});
                  answeredAt.put(key, clock.nowMs());
                  inFlight.remove(key);
                  return ok(c);
                });
    assertThat(out.results()).hasSize(5);
    assertThat(overlapping).hasValue(0);
    assertThat(shortThinks).isEmpty();
    List<Sent> a = sent.stream().filter(s -> s.session().equals("a")).toList();
    assertThat(a).extracting(Sent::turn).containsExactly(0, 1, 2);
    // system ‖ user_0 ‖ answer_0 ‖ user_1 ‖ answer_1 ‖ user_2
    assertThat(a.get(2).prompt()).containsExactly(1001, 1002, 1100, 1900, 1101, 1901, 1102);
    assertThat(a.get(0).prompt()).containsExactly(1001, 1002, 1100);
    Sent b0 = sent.stream().filter(s -> s.session().equals("b")).findFirst().orElseThrow();
    assertThat(b0.atMs()).as("b starts at its startMs").isGreaterThanOrEqualTo(199);
    assertThat(out.durationMs()).isGreaterThanOrEqualTo(1000);
  }

  @Test
  void aFailedTurnEndsItsSessionAndCountsItsLaterTurnsAsDone() throws Exception {
    List<int[]> progress = Collections.synchronizedList(new ArrayList<>());
    LoadGenerator.Outcome out =
        new LoadGenerator(
                new SimClock(SPEEDUP), (done, total) -> progress.add(new int[] {done, total}))
            .run(
                workload(session("a", 0, 4, 10), session("b", 0, 2, 10)),
                c -> {
                  if (c.session().id().equals("a") && c.turn() == 1) {
                    return RequestResult.failed("test", 1, "a", 1, "w0", 0, RequestResult.REJECTED);
                  }
                  return ok(c);
                });
    // a: turns 0 and 1 (failed), 2 and 3 never sent; b: both turns.
    assertThat(out.results()).hasSize(4);
    assertThat(out.results())
        .filteredOn(r -> r.sessionId().equals("a"))
        .extracting(RequestResult::turn)
        .containsExactly(0, 1);
    assertThat(progress).allMatch(p -> p[1] == 6);
    assertThat(progress.stream().mapToInt(p -> p[0]).max().orElse(0)).isEqualTo(6);
  }

  @Test
  void sessionsRunConcurrently() throws Exception {
    // Each session's first request waits until the other's has been sent: a generator that sent
    // one request at a time would never get past the first.
    CountDownLatch bothSent = new CountDownLatch(2);
    AtomicInteger timedOut = new AtomicInteger();
    LoadGenerator.Outcome out =
        new LoadGenerator(new SimClock(SPEEDUP), null)
            .run(
                workload(session("a", 0, 1, 0), session("b", 0, 1, 0)),
                c -> {
                  bothSent.countDown();
                  try {
                    if (!bothSent.await(10, TimeUnit.SECONDS)) {
                      timedOut.incrementAndGet();
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  return ok(c);
                });
    assertThat(timedOut).hasValue(0);
    assertThat(out.results())
        .extracting(RequestResult::sessionId)
        .containsExactlyInAnyOrder("a", "b");
  }
}
