package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.router.config.Role;
import io.infera.router.config.SessionAffinityConfig;
import io.infera.router.config.SessionAffinityConfig.Mode;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.RequestHashes;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.ApproxPrefixIndex;
import io.infera.router.policy.LoadTracker;
import io.infera.router.policy.SessionBinding;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Session affinity in the pick: bound, first, replaced, per mode, over a real fleet and index. */
class SessionAffinityPickTest {

  private static final int P = 16;
  private final PrefixIndex index = new PrefixIndex(P);
  private final LoadTracker load = new LoadTracker();
  private final AtomicLong clock = new AtomicLong(1_000);
  private final Fleet fleet = new Fleet(3, 60_000, 60_000, clock::get);
  private final BlockHasher hasher = new BlockHasher(P);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private static WorkerInfo worker(
      String id, Role role, int dpSize, WorkerInfo.Readiness readiness) {
    return new WorkerInfo(
        WorkerId.of(id),
        "http://127.0.0.1:1",
        role,
        "vllm",
        dpSize,
        null,
        null,
        readiness,
        "pool-" + role.wireName());
  }

  private static WorkerInfo worker(String id, Role role) {
    return worker(id, role, 1, WorkerInfo.Readiness.READY);
  }

  private RequestRouter router(Mode mode) {
    RequestRouter r =
        new RequestRouter(
            fleet,
            index,
            load,
            new PolicyConfig(PolicyName.KV_AWARE, 1.0, null, null),
            new ApproxPrefixIndex(60_000, 10_000, () -> 0L),
            new RoutingMetrics());
    SessionAffinity a =
        new SessionAffinity(SessionAffinityConfig.DEFAULTS.withMode(mode), 7, clock::get);
    a.bindTo(registry);
    r.attachSessionAffinity(a);
    return r;
  }

  private static SessionKey session(String key) {
    return SessionKey.of(key, null, 256).key();
  }

  private RequestHashes prompt(int blocks, int seed) {
    return RequestHashes.of(
        hasher.requestHashes(
            IntStream.range(0, blocks * P).map(i -> seed * 100_000 + i).toArray(), 0));
  }

  private void cache(String worker, int blocks, int seed) {
    int[] tokens = IntStream.range(0, blocks * P).map(i -> seed * 100_000 + i).toArray();
    index.apply(
        WorkerId.of(worker),
        KvEventMessage.NO_SEQ,
        new EventBatch(
            0,
            List.of(
                new KvEvent.BlockStored(
                    hasher.requestHashes(tokens, 0),
                    null,
                    tokens,
                    P,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null)),
            0,
            0));
  }

  private static RoutePlan ok(RequestRouter.Pick p) {
    return ((RequestRouter.Pick.Ok) p).plan();
  }

  private static String id(RoutePlan p) {
    return p.worker().info().id().value();
  }

  private double count(String name, String... tags) {
    return registry.get(name).tags(tags).counter().count();
  }

  @Test
  void aBoundSessionKeepsItsWorkerAgainstABetterCacheAndLoadAndIsStillBooked() {
    fleet.apply(List.of(worker("a", Role.MIXED), worker("b", Role.MIXED)));
    RequestRouter r = router(Mode.PREFILL);
    cache("a", 4, 1);
    RoutePlan first = ok(r.pick(prompt(4, 1), Set.of(), 0, session("s1")));
    assertThat(id(first)).isEqualTo("a");
    assertThat(first.session()).isInstanceOf(SessionAffinity.Verdict.First.class);
    // Now b caches a longer prefix of the next turn and a is loaded: a session-less pick says b.
    cache("b", 8, 2);
    RoutePlan free = ok(r.pick(prompt(8, 2), Set.of(), 0, null));
    assertThat(id(free)).isEqualTo("b");
    assertThat(free.session().sessionBound()).isFalse();
    RoutePlan bound = ok(r.pick(prompt(8, 2), Set.of(), 0, session("s1")));
    assertThat(id(bound)).isEqualTo("a");
    assertThat(bound.session()).isEqualTo(new SessionAffinity.Verdict.Bound(WorkerId.of("a"), -1));
    assertThat(bound.decision().winnerScore().hits()).isZero(); // the scores are still the policy's
    assertThat(bound.booking()).isNotNull();
    assertThat(load.load(WorkerId.of("a")).inFlight()).isEqualTo(2);
    assertThat(count("infera.session.affinity.hits", "side", "prefill")).isEqualTo(1);
    assertThat(count("infera.session.affinity.misses", "side", "prefill")).isEqualTo(1);
    assertThat(registry.get("infera.session.affinity.bindings").gauge().value()).isEqualTo(1);
  }

  @Test
  void aBoundWorkerThatDrainsLeavesOrTripsItsBreakerIsReplacedAndTheSessionRebound() {
    fleet.apply(List.of(worker("a", Role.MIXED), worker("b", Role.MIXED), worker("c", Role.MIXED)));
    RequestRouter r = router(Mode.PREFILL);
    SessionKey s = session("s");
    String w1 = id(ok(r.pick(prompt(2, 1), Set.of(), 0, s)));

    // Its breaker trips: replaced.
    for (int i = 0; i < 3; i++) {
      fleet.member(WorkerId.of(w1)).breaker().onFault();
    }
    RoutePlan p2 = ok(r.pick(prompt(2, 1), Set.of(), 0, s));
    assertThat(id(p2)).isNotEqualTo(w1);
    assertThat(p2.session())
        .isEqualTo(
            new SessionAffinity.Verdict.Replaced(
                WorkerId.of(w1), SessionAffinity.Replacement.BREAKER_OPEN));
    String w2 = id(p2);
    assertThat(id(ok(r.pick(prompt(2, 1), Set.of(), 0, s)))).isEqualTo(w2); // rebound

    // It fails this request (a retry excludes it): replaced for the retry.
    RoutePlan retry = ok(r.pick(prompt(2, 1), Set.of(WorkerId.of(w2)), 0, s));
    assertThat(((SessionAffinity.Verdict.Replaced) retry.session()).reason())
        .isEqualTo(SessionAffinity.Replacement.EXCLUDED);
    String w3 = id(retry);
    assertThat(w3).isNotEqualTo(w2);

    // It drains.
    List<WorkerInfo> fleetNow = new ArrayList<>();
    for (String w : List.of("a", "b", "c")) {
      fleetNow.add(
          w.equals(w3)
              ? worker(w, Role.MIXED, 1, WorkerInfo.Readiness.DRAINING)
              : worker(w, Role.MIXED));
    }
    fleet.apply(fleetNow);
    RoutePlan p4 = ok(r.pick(prompt(2, 1), Set.of(), 0, s));
    assertThat(((SessionAffinity.Verdict.Replaced) p4.session()).reason())
        .isEqualTo(SessionAffinity.Replacement.DRAINING);
    String w4 = id(p4);

    // It leaves discovery.
    fleet.apply(
        List.of("a", "b", "c").stream()
            .filter(w -> !w.equals(w4))
            .map(w -> worker(w, Role.MIXED))
            .toList());
    RoutePlan p5 = ok(r.pick(prompt(2, 1), Set.of(), 0, s));
    assertThat(((SessionAffinity.Verdict.Replaced) p5.session()).reason())
        .isEqualTo(SessionAffinity.Replacement.GONE);
    assertThat(id(p5)).isNotEqualTo(w4);
    for (String reason : List.of("breaker_open", "excluded", "draining", "gone")) {
      assertThat(count("infera.session.affinity.replacements", "side", "prefill", "reason", reason))
          .as(reason)
          .isEqualTo(1);
    }
  }

  @Test
  void underPrefillOnlyThePrefillWorkerIsBoundAndDecodeIsBalanced() {
    fleet.apply(
        List.of(
            worker("p0", Role.PREFILL),
            worker("p1", Role.PREFILL),
            worker("d0", Role.DECODE),
            worker("d1", Role.DECODE)));
    RequestRouter r = router(Mode.PREFILL);
    SessionKey s = session("s");
    Set<String> prefill = new java.util.HashSet<>();
    Set<String> decode = new java.util.HashSet<>();
    for (int i = 0; i < 6; i++) {
      RequestRouter.Pick.Pair pair =
          (RequestRouter.Pick.Pair) r.pick(prompt(4, 1), Set.of(), 0, s); // kept in flight
      prefill.add(id(pair.prefill()));
      decode.add(id(pair.decode()));
      assertThat(pair.decode().session().sessionBound()).isFalse();
    }
    assertThat(prefill).hasSize(1);
    assertThat(decode).containsExactlyInAnyOrder("d0", "d1"); // balanced on load
  }

  @Test
  void underBothTheDecodeWorkerAndItsRankAreBoundToo() {
    fleet.apply(
        List.of(
            worker("p0", Role.PREFILL),
            worker("p1", Role.PREFILL),
            worker("d0", Role.DECODE, 4, WorkerInfo.Readiness.READY),
            worker("d1", Role.DECODE, 4, WorkerInfo.Readiness.READY)));
    RequestRouter r = router(Mode.BOTH);
    SessionKey s = session("s");
    RequestRouter.Pick.Pair first = (RequestRouter.Pick.Pair) r.pick(prompt(4, 1), Set.of(), 0, s);
    String d = id(first.decode());
    for (int i = 0; i < 5; i++) {
      RequestRouter.Pick.Pair pair = (RequestRouter.Pick.Pair) r.pick(prompt(4, 1), Set.of(), 0, s);
      assertThat(id(pair.prefill())).isEqualTo(id(first.prefill()));
      assertThat(id(pair.decode())).isEqualTo(d);
      assertThat(pair.decode().session()).isInstanceOf(SessionAffinity.Verdict.Bound.class);
    }
    // A binding naming rank 3 (from another replica) sends decode there.
    SessionBinding b = r.sessionAffinity().bindings().peek(s.hash());
    r.sessionAffinity()
        .bindings()
        .merge(s.hash(), new SessionBinding(b.first(), 0, b.decode(), 3, b.version() + 1, 9));
    RequestRouter.Pick.Pair ranked = (RequestRouter.Pick.Pair) r.pick(prompt(4, 1), Set.of(), 0, s);
    assertThat(ranked.decode().dpRank()).isEqualTo(3);
    assertThat(count("infera.session.affinity.hits", "side", "decode")).isEqualTo(6);
    assertThat(count("infera.session.affinity.misses", "side", "decode")).isEqualTo(1);
  }

  @Test
  void aRankTheWorkerNoLongerHasIsNotUsed() {
    fleet.apply(List.of(worker("a", Role.MIXED, 2, WorkerInfo.Readiness.READY)));
    RequestRouter r = router(Mode.BOTH);
    SessionKey s = session("s");
    r.sessionAffinity()
        .bindings()
        .merge(s.hash(), new SessionBinding(WorkerId.of("a"), 5, null, -1, 1, 9));
    RoutePlan p = ok(r.pick(prompt(2, 1), Set.of(), 0, s));
    assertThat(p.session()).isEqualTo(new SessionAffinity.Verdict.Bound(WorkerId.of("a"), -1));
    assertThat(p.dpRank()).isZero();
  }

  @Test
  void explainShowsTheBindingWithoutUsingOrMakingOne() {
    fleet.apply(List.of(worker("a", Role.MIXED), worker("b", Role.MIXED)));
    RequestRouter r = router(Mode.PREFILL);
    SessionKey s = session("s");
    assertThat(ok(r.explain(prompt(2, 1), s)).session())
        .isInstanceOf(SessionAffinity.Verdict.First.class);
    assertThat(r.sessionAffinity().bindings().size()).isZero();
    String w = id(ok(r.pick(prompt(2, 1), Set.of(), 0, s)));
    clock.addAndGet(SessionAffinityConfig.DEFAULT_TTL_MS - 1);
    RoutePlan e = ok(r.explain(prompt(2, 1), s));
    assertThat(e.session()).isInstanceOf(SessionAffinity.Verdict.Bound.class);
    assertThat(id(e)).isEqualTo(w);
    assertThat(e.booking()).isNull();
    clock.addAndGet(1); // the explain did not restart the idle time
    assertThat(ok(r.explain(prompt(2, 1), s)).session())
        .isInstanceOf(SessionAffinity.Verdict.First.class);
  }

  @Test
  void offOrWithoutAKeyNothingIsBound() {
    fleet.apply(List.of(worker("a", Role.MIXED), worker("b", Role.MIXED)));
    RequestRouter off = router(Mode.OFF);
    assertThat(ok(off.pick(prompt(2, 1), Set.of(), 0, session("s"))).session().sessionBound())
        .isFalse();
    assertThat(off.sessionAffinity().bindings().size()).isZero();
    assertThat(off.sessionAffinity().key("s", Map.of())).isNull();
    RequestRouter on = router(Mode.BOTH);
    assertThat(ok(on.pick(prompt(2, 1), Set.of(), 0, null)).session().label()).isEqualTo("none");
    assertThat(on.sessionAffinity().bindings().size()).isZero();
  }

  @Test
  void concurrentFirstPicksOfOneSessionAllGoWhereTheFirstBound() throws Exception {
    fleet.apply(List.of(worker("a", Role.MIXED), worker("b", Role.MIXED), worker("c", Role.MIXED)));
    RequestRouter r = router(Mode.PREFILL);
    SessionKey s = session("burst");
    Set<String> chosen = ConcurrentHashMap.newKeySet();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      Thread th =
          new Thread(
              () -> {
                try {
                  go.await();
                  for (int i = 0; i < 50; i++) {
                    chosen.add(id(ok(r.pick(prompt(2, 1), Set.of(), 0, s))));
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      th.start();
      threads.add(th);
    }
    go.countDown();
    for (Thread th : threads) {
      th.join();
    }
    assertThat(chosen).hasSize(1); // 400 picks in flight, all on one worker
    assertThat(count("infera.session.affinity.misses", "side", "prefill")).isEqualTo(1);
    assertThat(count("infera.session.affinity.hits", "side", "prefill")).isEqualTo(399);
  }

  @Test
  void unusableKeysAreCountedAndRouteAsWithoutASession() {
    RequestRouter r = router(Mode.PREFILL);
    SessionAffinity a = r.sessionAffinity();
    assertThat(a.key(null, Map.of("prompt_cache_key", 5L))).isNull();
    assertThat(a.key("x".repeat(300), Map.of())).isNull();
    assertThat(a.key("  ", Map.of())).isNull();
    assertThat(a.key(null, Map.of("prompt_cache_key", "ok"))).isNotNull();
    assertThat(a.key(null, Map.of())).isNull(); // absent: not counted
    assertThat(count("infera.session.affinity.keys", "result", "not_string")).isEqualTo(1);
    assertThat(count("infera.session.affinity.keys", "result", "too_long")).isEqualTo(1);
    assertThat(count("infera.session.affinity.keys", "result", "empty")).isEqualTo(1);
    assertThat(count("infera.session.affinity.keys", "result", "found")).isEqualTo(1);
  }
}
