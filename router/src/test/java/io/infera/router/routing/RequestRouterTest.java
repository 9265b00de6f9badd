package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.RequestHasher;
import io.infera.router.kv.RequestHashes;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.ApproxPrefixIndex;
import io.infera.router.policy.LoadTracker;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The pick path over a real fleet, index, tracker and approx history (no HTTP). */
class RequestRouterTest {

  private static final int P = 16;
  private final PrefixIndex index = new PrefixIndex(P);
  private final LoadTracker load = new LoadTracker();
  private final ApproxPrefixIndex approx = new ApproxPrefixIndex(60_000, 10_000, () -> 0L);
  private final Fleet fleet = new Fleet(3, 1_000, 10_000, () -> 0L);
  private final BlockHasher hasher = new BlockHasher(P);

  private static WorkerInfo worker(String id, Role role, WorkerInfo.Readiness readiness) {
    return new WorkerInfo(
        WorkerId.of(id),
        "http://127.0.0.1:1",
        role,
        "vllm",
        1,
        null,
        null,
        readiness,
        "pool-" + role.wireName());
  }

  private static WorkerInfo worker(String id, Role role) {
    return worker(id, role, WorkerInfo.Readiness.READY);
  }

  private RequestRouter router(PolicyName policy) {
    return new RequestRouter(
        fleet,
        index,
        load,
        new PolicyConfig(policy, 1.0, null, null),
        approx,
        new RoutingMetrics());
  }

  private long[] prompt(int blocks, int seed) {
    return hasher.requestHashes(
        IntStream.range(0, blocks * P).map(i -> seed * 100_000 + i).toArray(), 0);
  }

  private void cache(String worker, int blocks, int seed) {
    int[] tokens = IntStream.range(0, blocks * P).map(i -> seed * 100_000 + i).toArray();
    long[] hashes = hasher.requestHashes(tokens, 0);
    index.apply(
        WorkerId.of(worker),
        KvEventMessage.NO_SEQ,
        new EventBatch(
            0,
            List.of(
                new KvEvent.BlockStored(
                    hashes, null, tokens, P, null, null, null, null, null, null)),
            0,
            0));
  }

  @Test
  void aMixedPickGoesToTheWorkerThatCachesThePromptAndBooksIt() {
    fleet.apply(List.of(worker("a", Role.MIXED), worker("b", Role.MIXED)));
    cache("b", 8, 1);
    RequestRouter.Pick pick = router(PolicyName.KV_AWARE).pick(prompt(8, 1), Set.of(), 0);
    RoutePlan plan = ((RequestRouter.Pick.Ok) pick).plan();
    assertThat(plan.worker().info().id()).isEqualTo(WorkerId.of("b"));
    assertThat(plan.hitBlocks()).isEqualTo(8);
    assertThat(load.load(WorkerId.of("b")).inFlight()).isEqualTo(1);
    plan.booking().release();
    assertThat(load.load(WorkerId.of("b")).inFlight()).isZero();
  }

  @Test
  void aDivergingWorkerIsMatchedWithItsOwnHashesNotTheRouters() {
    fleet.apply(List.of(worker("a", Role.MIXED), worker("b", Role.MIXED)));
    // b renders the request differently: its cache holds the blocks of its own tokens (seed 2),
    // the router's tokens (seed 1) would find nothing there.
    cache("b", 8, 2);
    cache("a", 2, 1);
    RequestRouter r = router(PolicyName.KV_AWARE);
    RoutePlan without = ((RequestRouter.Pick.Ok) r.explain(RequestHashes.of(prompt(8, 1)))).plan();
    assertThat(without.worker().info().id()).isEqualTo(WorkerId.of("a"));
    assertThat(hits(without, "b")).isZero();

    java.util.Map<WorkerId, RequestHashes> own =
        java.util.Map.of(WorkerId.of("b"), RequestHashes.of(prompt(8, 2)));
    RoutePlan with =
        ((RequestRouter.Pick.Ok) r.pick(RequestHashes.of(prompt(8, 1)), own, Set.of(), 0)).plan();
    assertThat(with.worker().info().id()).isEqualTo(WorkerId.of("b"));
    assertThat(with.hitBlocks()).isEqualTo(8);
    with.booking().release();

    // Unknown own hashes (its /tokenize failed): no cache term for b, a keeps its own hits.
    java.util.Map<WorkerId, RequestHashes> unknown =
        java.util.Map.of(WorkerId.of("b"), RequestHashes.empty());
    cache("b", 8, 1); // even if b happened to hold the router's blocks, they are not trusted
    RoutePlan estimated =
        ((RequestRouter.Pick.Ok) r.explain(RequestHashes.of(prompt(8, 1)), unknown)).plan();
    assertThat(hits(estimated, "b")).isZero();
    assertThat(hits(estimated, "a")).isEqualTo(2);
  }

  private static int hits(RoutePlan plan, String worker) {
    return plan.decision().scores().stream()
        .filter(s -> s.worker().equals(WorkerId.of(worker)))
        .findFirst()
        .orElseThrow()
        .hits();
  }

  @Test
  void aWorkerWithAForcedBlockSizeIsComparedInPageSizeBlocks() {
    fleet.apply(List.of(worker("a", Role.MIXED), worker("b", Role.MIXED)));
    cache("a", 2, 3); // 2 blocks of 16
    // b's backend forced 64: one 64-token block of the same prompt = 4 blocks of 16.
    int[] tokens = IntStream.range(0, 8 * P).map(i -> 3 * 100_000 + i).toArray();
    index.apply(
        WorkerId.of("b"),
        KvEventMessage.NO_SEQ,
        new EventBatch(
            0,
            List.of(
                new KvEvent.BlockStored(
                    new long[] {77},
                    null,
                    java.util.Arrays.copyOf(tokens, 64),
                    64,
                    null,
                    null,
                    null,
                    null,
                    "mla_attention",
                    null)),
            0,
            0));
    RequestHashes request = new RequestHasher(P).hash(tokens, 0, index.otherBlockSizes());
    RoutePlan plan =
        ((RequestRouter.Pick.Ok) router(PolicyName.KV_AWARE).pick(request, Set.of(), 0)).plan();
    assertThat(plan.worker().info().id()).isEqualTo(WorkerId.of("b"));
    assertThat(plan.hitBlocks()).isEqualTo(4);
    assertThat(plan.decision().requestBlocks()).isEqualTo(8);
    plan.booking().release();
    // Hashed at the page size only, b's blocks are invisible (no false hit), a's still count.
    RoutePlan pageOnly =
        ((RequestRouter.Pick.Ok)
                router(PolicyName.KV_AWARE).explain(new BlockHasher(P).requestHashes(tokens, 0)))
            .plan();
    assertThat(pageOnly.worker().info().id()).isEqualTo(WorkerId.of("a"));
    assertThat(pageOnly.hitBlocks()).isEqualTo(2);
  }

  @Test
  void excludedWorkersAreNotPickedAgain() {
    fleet.apply(List.of(worker("a", Role.MIXED), worker("b", Role.MIXED)));
    cache("b", 8, 1);
    RequestRouter.Pick pick =
        router(PolicyName.KV_AWARE).pick(prompt(8, 1), Set.of(WorkerId.of("b")), 0);
    assertThat(((RequestRouter.Pick.Ok) pick).plan().worker().info().id())
        .isEqualTo(WorkerId.of("a"));
  }

  @Test
  void withoutMixedWorkersThePickIsAPairBothBooked() {
    fleet.apply(
        List.of(worker("p0", Role.PREFILL), worker("p1", Role.PREFILL), worker("d0", Role.DECODE)));
    cache("p1", 6, 2);
    RequestRouter.Pick pick = router(PolicyName.KV_AWARE).pick(prompt(6, 2), Set.of(), 0);
    RequestRouter.Pick.Pair pair = (RequestRouter.Pick.Pair) pick;
    assertThat(pair.prefill().worker().info().id()).isEqualTo(WorkerId.of("p1"));
    assertThat(pair.prefill().hitBlocks()).isEqualTo(6);
    assertThat(pair.decode().worker().info().id()).isEqualTo(WorkerId.of("d0"));
    assertThat(load.load(WorkerId.of("p1")).inFlight()).isEqualTo(1);
    assertThat(load.load(WorkerId.of("d0")).inFlight()).isEqualTo(1);
  }

  @Test
  void approxPrefixLearnsFromPairPicksAsFromMixedOnes() {
    fleet.apply(
        List.of(worker("p0", Role.PREFILL), worker("p1", Role.PREFILL), worker("d0", Role.DECODE)));
    RequestRouter router = router(PolicyName.APPROX_PREFIX);
    long[] hashes = prompt(6, 3);
    RequestRouter.Pick.Pair first = (RequestRouter.Pick.Pair) router.pick(hashes, Set.of(), 0);
    WorkerId learned = first.prefill().worker().info().id();
    assertThat(approx.size(learned)).isEqualTo(6);
    assertThat(approx.size(WorkerId.of("d0"))).isEqualTo(6);
    first.prefill().booking().release();
    first.decode().booking().release();
    // Load the learned worker a little: the learned prefix still draws the repeat to it.
    RequestRouter.Pick.Pair second = (RequestRouter.Pick.Pair) router.pick(hashes, Set.of(), 0);
    assertThat(second.prefill().worker().info().id()).isEqualTo(learned);
    assertThat(second.prefill().hitBlocks()).isEqualTo(6);
  }

  @Test
  void explainNeitherBooksNorLearns() {
    fleet.apply(List.of(worker("a", Role.MIXED), worker("b", Role.MIXED)));
    RequestRouter router = router(PolicyName.APPROX_PREFIX);
    RequestRouter.Pick pick = router.explain(prompt(4, 4));
    RoutePlan plan = ((RequestRouter.Pick.Ok) pick).plan();
    assertThat(plan.booking()).isNull();
    assertThat(load.load(plan.worker().info().id()).inFlight()).isZero();
    assertThat(approx.size(plan.worker().info().id())).isZero();
  }

  @Test
  void noWorkerNamesEachWorkerAndWhyItIsOut() {
    fleet.apply(
        List.of(
            worker("a", Role.MIXED, WorkerInfo.Readiness.DRAINING),
            worker("b", Role.MIXED),
            worker("c", Role.MIXED)));
    fleet.setHealthy(WorkerId.of("c"), false);
    RequestRouter router = router(PolicyName.KV_AWARE);
    RequestRouter.Pick pick = router.pick(prompt(1, 5), Set.of(WorkerId.of("b")), 0);
    assertThat(((RequestRouter.Pick.Failed) pick).failure().message())
        .isEqualTo(
            "no routable worker in pool pool-mixed (a: draining, b: failed this request, c: unhealthy)");
    assertThat(router.notRoutableReason()).isEmpty(); // b is fine for a new request
    fleet.setHealthy(WorkerId.of("b"), false);
    assertThat(router.notRoutableReason())
        .contains(
            "no routable worker (mixed, or prefill and decode): a (mixed) draining,"
                + " b (mixed) unhealthy, c (mixed) unhealthy");
  }

  @Test
  void aFleetOfOnlyPrefillWorkersIsNotRoutableAndSaysSo() {
    fleet.apply(List.of(worker("p0", Role.PREFILL)));
    RequestRouter router = router(PolicyName.KV_AWARE);
    assertThat(router.canRoute()).isFalse();
    assertThat(
            ((RequestRouter.Pick.Failed) router.pick(new long[0], Set.of(), 0)).failure().message())
        .isEqualTo(
            "no routable worker in pool with role mixed: the fleet has only [prefill] workers");
    assertThat(router.notRoutableReason())
        .contains("no routable worker (mixed, or prefill and decode): p0 (prefill) eligible");
  }

  @Test
  void anEmptyFleetSaysNoneIsKnown() {
    RequestRouter router = router(PolicyName.KV_AWARE);
    assertThat(
            ((RequestRouter.Pick.Failed) router.pick(new long[0], Set.of(), 0)).failure().message())
        .isEqualTo("no worker discovered yet for model pools (pool role mixed): none known");
    assertThat(router.notRoutableReason())
        .contains("no routable worker (mixed, or prefill and decode): none discovered");
  }

  @Test
  void tokenizeWorkerIsAMixedWorkerChosenByTheRequestId() {
    RequestRouter router = router(PolicyName.KV_AWARE);
    assertThat(router.tokenizeWorker("r1")).isEmpty();
    fleet.apply(
        List.of(worker("a", Role.MIXED), worker("b", Role.MIXED), worker("p", Role.PREFILL)));
    List<WorkerId> chosen = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      String id = "req-" + i;
      WorkerId w = router.tokenizeWorker(id).orElseThrow().info().id();
      assertThat(router.tokenizeWorker(id).orElseThrow().info().id()).isEqualTo(w);
      chosen.add(w);
    }
    assertThat(chosen)
        .contains(WorkerId.of("a"), WorkerId.of("b"))
        .doesNotContain(WorkerId.of("p"));
  }

  @Test
  void tokenizeWorkerFallsBackToPrefillThenDecodeWorkers() {
    RequestRouter router = router(PolicyName.KV_AWARE);
    fleet.apply(
        List.of(worker("p0", Role.PREFILL), worker("p1", Role.PREFILL), worker("d0", Role.DECODE)));
    List<WorkerId> chosen = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      chosen.add(router.tokenizeWorker("req-" + i).orElseThrow().info().id());
    }
    assertThat(chosen)
        .contains(WorkerId.of("p0"), WorkerId.of("p1"))
        .doesNotContain(WorkerId.of("d0"));
    // Only decode workers routable: one of them (the request is routed by load regardless).
    fleet.apply(List.of(worker("d0", Role.DECODE)));
    assertThat(router.tokenizeWorker("r1").orElseThrow().info().id()).isEqualTo(WorkerId.of("d0"));
    fleet.setHealthy(WorkerId.of("d0"), false);
    assertThat(router.tokenizeWorker("r1")).isEmpty();
  }
}
