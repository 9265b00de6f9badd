package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.WorkerId;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each worker's {@link Eligibility}, and the routable set built from it. */
class FleetEligibilityTest {

  private final AtomicLong clock = new AtomicLong();
  private final Fleet fleet = new Fleet(1, 1_000, 10_000, clock::get);

  private static WorkerInfo worker(String id, Role role, WorkerInfo.Readiness r) {
    return new WorkerInfo(WorkerId.of(id), "http://h:1", role, "vllm", 1, null, null, r, "p");
  }

  @ParameterizedTest(name = "excluded={0} draining={1} healthy={2} breakerOpen={3} -> {4}")
  @CsvSource({
    "false, false, true,  false, ELIGIBLE",
    "true,  false, true,  false, EXCLUDED",
    "true,  true,  false, true,  EXCLUDED",
    "false, true,  true,  false, DRAINING",
    "false, true,  false, true,  DRAINING",
    "false, false, false, false, UNHEALTHY",
    "false, false, false, true,  UNHEALTHY",
    "false, false, true,  true,  BREAKER_OPEN"
  })
  void theFirstFailingCheckIsTheAnswer(
      boolean excluded, boolean draining, boolean healthy, boolean breakerOpen, Eligibility want) {
    fleet.apply(
        List.of(
            worker(
                "a",
                Role.MIXED,
                draining ? WorkerInfo.Readiness.DRAINING : WorkerInfo.Readiness.READY)));
    fleet.setHealthy(WorkerId.of("a"), healthy);
    Fleet.Member m = fleet.member(WorkerId.of("a"));
    if (breakerOpen) {
      m.breaker().onFault(); // one failure opens a breaker of threshold 1
    }
    Set<WorkerId> exclude = excluded ? Set.of(WorkerId.of("a")) : Set.of();
    assertThat(m.eligibility(exclude)).isEqualTo(want);
  }

  @Test
  void breakerOpenWorkersAreUsedOnlyWhenNoOtherIsEligible() {
    fleet.apply(
        List.of(
            worker("a", Role.MIXED, WorkerInfo.Readiness.READY),
            worker("b", Role.MIXED, WorkerInfo.Readiness.READY),
            worker("p", Role.PREFILL, WorkerInfo.Readiness.READY)));
    fleet.member(WorkerId.of("a")).breaker().onFault();
    assertThat(ids(fleet.routable(Set.of(Role.MIXED), Set.of()))).containsExactly("b");
    fleet.member(WorkerId.of("b")).breaker().onFault();
    assertThat(ids(fleet.routable(Set.of(Role.MIXED), Set.of()))).containsExactly("a", "b");
    assertThat(ids(fleet.routable(Set.of(Role.MIXED), Set.of(WorkerId.of("a")))))
        .containsExactly("b");
    assertThat(ids(fleet.routable(Set.of(Role.PREFILL), Set.of()))).containsExactly("p");
    clock.addAndGet(1_000); // cooldown over: half-open lets a probe through
    assertThat(fleet.member(WorkerId.of("a")).eligibility(Set.of()))
        .isEqualTo(Eligibility.ELIGIBLE);
  }

  @Test
  void drainingAndUnhealthyWorkersAreNeverRoutable() {
    fleet.apply(
        List.of(
            worker("a", Role.MIXED, WorkerInfo.Readiness.DRAINING),
            worker("b", Role.MIXED, WorkerInfo.Readiness.READY)));
    fleet.setHealthy(WorkerId.of("b"), false);
    assertThat(fleet.routable(Set.of(Role.MIXED), Set.of())).isEmpty();
  }

  private static List<String> ids(List<Fleet.Member> members) {
    return members.stream().map(m -> m.info().id().value()).toList();
  }
}
