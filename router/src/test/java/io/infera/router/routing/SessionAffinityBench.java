package io.infera.router.routing;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.Role;
import io.infera.router.config.SessionAffinityConfig;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.RequestHashes;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.LoadTracker;
import io.infera.router.policy.SessionBinding;
import io.infera.router.policy.SessionBindings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What session affinity adds to a pick: the key's extraction and hash ({@code key}), one binding
 * lookup in a full 100,000-session table ({@code bindingUse}), and the whole pick over 64 workers
 * for a 200-block prompt without a session ({@code pickWithoutSession}) and for a bound one of the
 * 100,000 sessions ({@code pickBoundSession}), booking released each time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SessionAffinityBench {

  static final int SESSIONS = 100_000;

  RequestRouter router;
  SessionAffinity affinity;
  RequestHashes hashes;
  SessionKey[] keys;
  Map<String, Object> body;
  int next;

  @Setup
  public void setup() {
    Fleet fleet = new Fleet(3, 1000, 30_000, System::currentTimeMillis);
    List<WorkerInfo> infos = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      infos.add(
          new WorkerInfo(
              WorkerId.of("w" + i),
              "http://127.0.0.1:1",
              Role.MIXED,
              "vllm",
              1,
              null,
              null,
              WorkerInfo.Readiness.READY,
              "bench"));
    }
    fleet.apply(infos);
    router =
        new RequestRouter(
            fleet, new PrefixIndex(16), new LoadTracker(), PolicyConfig.defaults(), null, null);
    affinity =
        new SessionAffinity(
            SessionAffinityConfig.DEFAULTS.withMode(SessionAffinityConfig.Mode.PREFILL),
            1,
            System::currentTimeMillis);
    router.attachSessionAffinity(affinity);
    long[] h = new long[200];
    for (int i = 0; i < h.length; i++) {
      h[i] = 0x9e3779b97f4a7c15L * (i + 1);
    }
    hashes = RequestHashes.of(h);
    keys = new SessionKey[SESSIONS];
    SessionBindings b = affinity.bindings();
    for (int i = 0; i < SESSIONS; i++) {
      keys[i] = SessionKey.of("7f9c2ba4-e88f-11ee-b9d1-" + i, null, 256).key();
      b.put(keys[i].hash(), new SessionBinding(WorkerId.of("w" + (i % 64)), -1, null, -1, 1, 1));
    }
    body = Map.of("prompt_cache_key", "7f9c2ba4-e88f-11ee-b9d1-0242ac120002");
  }

  @Benchmark
  public SessionKey key() {
    return SessionKey.of(null, body, 256).key();
  }

  @Benchmark
  public SessionBinding bindingUse() {
    return affinity.bindings().use(keys[next++ % SESSIONS].hash());
  }

  @Benchmark
  public RoutePlan pickWithoutSession() {
    RoutePlan p = ((RequestRouter.Pick.Ok) router.pick(hashes, Set.of(), 0, null)).plan();
    p.booking().release();
    return p;
  }

  @Benchmark
  public RoutePlan pickBoundSession() {
    RoutePlan p =
        ((RequestRouter.Pick.Ok) router.pick(hashes, Set.of(), 0, keys[next++ % SESSIONS])).plan();
    p.booking().release();
    return p;
  }
}
