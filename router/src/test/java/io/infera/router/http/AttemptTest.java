package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.LoadTracker;
import io.infera.router.routing.CircuitBreaker;
import io.infera.router.routing.Fleet;
import io.infera.router.routing.RequestRouter;
import io.infera.router.routing.RoutingMetrics;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** An attempt releases its booking once and reports each answer to the worker's breaker. */
class AttemptTest {

  private final LoadTracker load = new LoadTracker();
  private final Fleet fleet = new Fleet(1, 60_000, 60_000, () -> 0L);
  private final RequestRouter router =
      new RequestRouter(
          fleet, new PrefixIndex(16), load, PolicyConfig.defaults(), null, new RoutingMetrics());

  private Attempt attempt() {
    fleet.apply(
        List.of(
            new WorkerInfo(
                WorkerId.of("w"),
                "http://h:1",
                Role.MIXED,
                "vllm",
                1,
                null,
                null,
                WorkerInfo.Readiness.READY,
                "p")));
    return new Attempt(((RequestRouter.Pick.Ok) router.pick(new long[0], Set.of(), 0)).plan());
  }

  @Test
  void closingTwiceReleasesTheBookingOnce() {
    Attempt a = attempt();
    Attempt other =
        new Attempt(((RequestRouter.Pick.Ok) router.pick(new long[0], Set.of(), 0)).plan());
    assertThat(load.load(WorkerId.of("w")).inFlight()).isEqualTo(2);
    a.close();
    a.close();
    assertThat(a.closed()).isTrue();
    assertThat(load.load(WorkerId.of("w")).inFlight()).isEqualTo(1);
    other.close();
    assertThat(load.load(WorkerId.of("w")).inFlight()).isZero();
  }

  @ParameterizedTest(name = "status {0} -> breaker {1}")
  @CsvSource({"200, CLOSED", "400, CLOSED", "429, CLOSED", "500, OPEN", "503, OPEN"})
  void anAnswerIsASuccessBelow500AndAFaultFrom500(int status, CircuitBreaker.State want) {
    Attempt a = attempt();
    a.sent();
    a.answered(status);
    assertThat(fleet.member(WorkerId.of("w")).breaker().state()).isEqualTo(want);
  }

  @Test
  void aFailureIsAFault() {
    Attempt a = attempt();
    a.sent();
    a.failed();
    assertThat(fleet.member(WorkerId.of("w")).breaker().state())
        .isEqualTo(CircuitBreaker.State.OPEN);
  }
}
