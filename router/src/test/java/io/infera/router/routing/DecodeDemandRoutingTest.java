package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.DecodeDemandConfig;
import io.infera.router.config.DecodeDemandConfig.GuardRelease;
import io.infera.router.config.DecodeDemandConfig.Mode;
import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.RequestHashes;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.ApproxPrefixIndex;
import io.infera.router.policy.DecodeDemand;
import io.infera.router.policy.DemandPick;
import io.infera.router.policy.DemandTarget;
import io.infera.router.policy.InputTokens;
import io.infera.router.policy.LoadTracker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Decode picks with decode input demand: off, shadow and on over a real fleet (no HTTP). */
class DecodeDemandRoutingTest {

  private final PrefixIndex index = new PrefixIndex(16);
  private final LoadTracker load = new LoadTracker();
  private final Fleet fleet = new Fleet(3, 1_000, 10_000, () -> 0L);
  private final DecodeDemand demand = new DecodeDemand();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final DecodeDemandMeters meters = new DecodeDemandMeters(demand, registry);

  private static WorkerInfo worker(String id, Role role, int dp) {
    return new WorkerInfo(
        WorkerId.of(id),
        "http://127.0.0.1:1",
        role,
        "vllm",
        dp,
        null,
        null,
        WorkerInfo.Readiness.READY,
        "pool-" + role.wireName());
  }

  private RequestRouter router(PolicyName policy, Mode mode, double weight) {
    RequestRouter r =
        new RequestRouter(
            fleet,
            index,
            load,
            new PolicyConfig(policy, 1.0, null, null),
            new ApproxPrefixIndex(60_000, 10_000, () -> 0L),
            new RoutingMetrics());
    r.attachDecodeDemand(new DecodeDemandConfig(mode, weight, GuardRelease.DECODE), demand, meters);
    return r;
  }

  private void pdFleet(int decodeDp) {
    fleet.apply(
        List.of(
            worker("p0", Role.PREFILL, 1),
            worker("d0", Role.DECODE, decodeDp),
            worker("d1", Role.DECODE, decodeDp)));
  }

  private static InputTokens tokens(long n) {
    return new InputTokens(n, 1, true, false);
  }

  private RequestRouter.Pick.Pair pair(RequestRouter r, InputTokens in) {
    return (RequestRouter.Pick.Pair) r.pick(RequestHashes.empty(), in, Set.of(), 0);
  }

  private static String worker(RoutePlan p) {
    return p.worker().info().id().value();
  }

  @Test
  void onSpreadsLongInputsByTokensNotByRequestCount() {
    pdFleet(1);
    RequestRouter r = router(PolicyName.KV_AWARE, Mode.ON, 0);
    RequestRouter.Pick.Pair big = pair(r, tokens(30_000));
    String bigOn = worker(big.decode());
    // Three short requests follow: all go to the other worker, which holds fewer input tokens
    // even as its request count passes the first one's.
    List<String> small = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      small.add(worker(pair(r, tokens(1_000)).decode()));
    }
    assertThat(small).allSatisfy(w -> assertThat(w).isNotEqualTo(bigOn));
    DemandTarget other = new DemandTarget(WorkerId.of(small.get(0)), 0, 1);
    assertThat(demand.load(other)).isEqualTo(new DecodeDemand.Load(3_000, 3));
    assertThat(load.load(WorkerId.of(small.get(0))).inFlight()).isEqualTo(3);
    big.decode().release();
    assertThat(demand.load(new DemandTarget(WorkerId.of(bigOn), 0, 1)))
        .isEqualTo(DecodeDemand.Load.IDLE);
  }

  @Test
  void theRequestWeightCountsRequestsAsTokens() {
    pdFleet(1);
    RequestRouter r = router(PolicyName.KV_AWARE, Mode.ON, 10_000);
    String first = worker(pair(r, tokens(5_000)).decode());
    // Two 1,000-token requests go to the other worker (12,000 < 16,000 for the second); a third
    // there would cost 2,000 + 1,000 + 2 × 10,000 = 23,000 against 16,000 on the first worker.
    // Without W it would stay (3,000 < 6,000).
    String second = worker(pair(r, tokens(1_000)).decode());
    String third = worker(pair(r, tokens(1_000)).decode());
    String fourth = worker(pair(r, tokens(1_000)).decode());
    assertThat(second).isNotEqualTo(first);
    assertThat(third).isEqualTo(second);
    assertThat(fourth).isEqualTo(first);
  }

  @Test
  void shadowKeepsTheOriginalPickButBooksAndCountsItsSuggestion() {
    pdFleet(1);
    RequestRouter r = router(PolicyName.KV_AWARE, Mode.SHADOW, 0);
    RequestRouter off = router(PolicyName.KV_AWARE, Mode.OFF, 0);
    RequestRouter.Pick.Pair a = pair(r, tokens(20_000));
    DemandPick first = a.decode().demand();
    assertThat(first.actual()).isEqualTo(first.original());
    assertThat(first.mode()).isEqualTo(Mode.SHADOW);
    // Demand suggests the other, empty worker; the original policy decides by its own load.
    RequestRouter.Pick.Pair b = pair(r, tokens(100));
    DemandPick second = b.decode().demand();
    assertThat(second.actual()).isEqualTo(second.original());
    assertThat(second.suggested()).isNotEqualTo(first.actual());
    assertThat(second.agrees()).isEqualTo(second.original().equals(second.suggested()));
    long same = second.actual().equals(first.actual()) ? 100 : 0;
    assertThat(demand.load(first.actual()).tokens()).isEqualTo(20_000 + same);
    assertThat(
            registry
                .find("infera.router.decode.demand.decisions")
                .tags("mode", "shadow", "input", "exact")
                .counters()
                .stream()
                .mapToDouble(c -> c.count())
                .sum())
        .isEqualTo(2.0);
    assertThat(registry.find("infera.router.decode.demand.tokens").gauges()).isNotEmpty();
    // off attaches nothing: no demand on its plans, nothing reserved.
    off.attachDecodeDemand(DecodeDemandConfig.DEFAULTS, demand, meters);
    assertThat(pair(off, tokens(5)).decode().demand()).isNull();
  }

  @Test
  void shadowReportsDisagreementWhenTheOriginalPolicyIgnoresTokens() {
    pdFleet(1);
    RequestRouter r = router(PolicyName.KV_AWARE, Mode.SHADOW, 0);
    RequestRouter.Pick.Pair big = pair(r, tokens(50_000));
    RequestRouter.Pick.Pair small = pair(r, tokens(10));
    big.prefill().release();
    small.prefill().release();
    small.decode().release();
    // The original load sees one in-flight request on each side now only by blocks and requests
    // booked; with `big` gone from the router load tracker but kept in demand, they differ.
    big.decode().booking().release();
    DemandPick next = pair(r, tokens(10)).decode().demand();
    assertThat(next.suggested().worker().value()).isNotEqualTo(worker(big.decode()));
    assertThat(next.agrees()).isEqualTo(next.suggested().equals(next.original()));
    assertThat(next.describe())
        .contains("mode=shadow", "input=exact", "original=", "suggested=", "projected=");
  }

  @Test
  void dataParallelRanksAreTargetsOfTheirOwn() {
    pdFleet(2);
    RequestRouter r = router(PolicyName.KV_AWARE, Mode.ON, 0);
    List<DemandTarget> taken = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      RequestRouter.Pick.Pair p = pair(r, tokens(1_000 * (4 - i)));
      taken.add(p.decode().demand().actual());
      assertThat(p.decode().dpRank()).isEqualTo(p.decode().demand().actual().rank());
    }
    assertThat(taken).doesNotHaveDuplicates().hasSize(4);
    assertThat(taken).extracting(DemandTarget::label).contains("d0/0", "d0/1", "d1/0", "d1/1");
  }

  @Test
  void prefillAndMixedPicksAreUnchangedAndReserveNothing() {
    pdFleet(1);
    RequestRouter r = router(PolicyName.KV_AWARE, Mode.ON, 0);
    RequestRouter.Pick.Pair p = pair(r, tokens(1_000));
    assertThat(p.prefill().demand()).isNull();
    fleet.apply(List.of(worker("m0", Role.MIXED, 1)));
    RequestRouter.Pick mixed = r.pick(RequestHashes.empty(), tokens(1_000), Set.of(), 0);
    assertThat(((RequestRouter.Pick.Ok) mixed).plan().demand()).isNull();
  }

  @Test
  void otherPoliciesIgnoreDemandEvenWhenAttached() {
    pdFleet(1);
    RequestRouter r = router(PolicyName.LEAST_LOADED, Mode.ON, 0);
    assertThat(pair(r, tokens(1_000)).decode().demand()).isNull();
    assertThat(demand.targets()).isEmpty();
  }

  @Test
  void releasingThePlanReleasesBothTheBookingAndTheReservationOnce() {
    pdFleet(1);
    RequestRouter r = router(PolicyName.KV_AWARE, Mode.ON, 0);
    RoutePlan d = pair(r, tokens(700)).decode();
    DemandTarget t = d.demand().actual();
    assertThat(d.release()).isTrue();
    assertThat(d.release()).isFalse();
    assertThat(demand.load(t)).isEqualTo(DecodeDemand.Load.IDLE);
    assertThat(load.load(t.worker()).inFlight()).isZero();
  }

  @Test
  void aWorkerLeavingDiscoveryKeepsItsLiveReservationsApartFromItsReturn() {
    pdFleet(1);
    RequestRouter r = router(PolicyName.KV_AWARE, Mode.ON, 0);
    RoutePlan d = pair(r, tokens(9_000)).decode();
    WorkerId w = d.worker().info().id();
    fleet.apply(List.of(worker("p0", Role.PREFILL, 1), worker("dx", Role.DECODE, 1)));
    demand.forget(w);
    meters.forget(w);
    assertThat(registry.find("infera.router.decode.demand.tokens").tag("target", w.value()).gauge())
        .isNull();
    pdFleet(1); // it returns
    RoutePlan again = pair(r, tokens(100)).decode();
    d.release(); // the old request's late completion
    DemandTarget t = new DemandTarget(w, 0, 1);
    long expected = again.worker().info().id().equals(w) ? 100 : 0;
    assertThat(demand.load(t).tokens()).isEqualTo(expected);
  }

  /** Concurrent decode picks see each other's reservations: the demand stays even. */
  @Test
  void concurrentPicksSpreadDemandEvenly() throws Exception {
    fleet.apply(
        List.of(
            worker("p0", Role.PREFILL, 1),
            worker("d0", Role.DECODE, 1),
            worker("d1", Role.DECODE, 1),
            worker("d2", Role.DECODE, 1),
            worker("d3", Role.DECODE, 1)));
    RequestRouter r = router(PolicyName.KV_AWARE, Mode.ON, 0);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        fs.add(
            pool.submit(
                () -> {
                  go.await();
                  for (int i = 0; i < 250; i++) {
                    pair(r, tokens(1_000));
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : fs) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    for (String d : List.of("d0", "d1", "d2", "d3")) {
      assertThat(demand.load(new DemandTarget(WorkerId.of(d), 0, 1)))
          .isEqualTo(new DecodeDemand.Load(250_000, 250));
    }
  }
}
