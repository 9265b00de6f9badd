package io.infera.router.routing;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.BenchIndex;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.RequestHashes;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.LoadTracker;
import java.util.ArrayList;
import java.util.HashMap;
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
 * The pick with render parity's own hashes ({@link RequestRouter#pick(RequestHashes, Map, Set,
 * long)}), over the {@link RouterPickBench} fleet (64 workers, 1M entries, a 2,000-block prompt),
 * hashing excluded: {@code noneDiverging} is the common case (an empty map: the plain pick), {@code
 * oneVariantDiverging} has 8 workers of one template variant matched with their own chain (one
 * extra index match, shared by the variant).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx4g"})
public class RenderParityPickBench {

  BenchIndex bench;
  RequestRouter router;
  RequestHashes prehashed;
  Map<WorkerId, RequestHashes> own;

  @Setup
  public void setup() {
    bench = BenchIndex.build(1_000_000, false, 11);
    Fleet fleet = new Fleet(3, 1000, 30_000, System::currentTimeMillis);
    List<WorkerInfo> infos = new ArrayList<>();
    for (WorkerId id : bench.workers) {
      infos.add(
          new WorkerInfo(
              id,
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
            fleet, bench.index, new LoadTracker(), PolicyConfig.defaults(), null, null);
    BlockHasher hasher = new BlockHasher(BenchIndex.PAGE);
    prehashed = RequestHashes.of(hasher.requestHashes(bench.promptTokens, 0));
    // The variant's rendering: the same prompt with a different first token.
    int[] theirs = bench.promptTokens.clone();
    theirs[0] = theirs[0] + 1;
    RequestHashes variant = RequestHashes.of(hasher.requestHashes(theirs, 0));
    own = new HashMap<>();
    for (int i = 0; i < 8; i++) {
      own.put(bench.workers.get(i), variant);
    }
  }

  private RoutePlan pickAndRelease(Map<WorkerId, RequestHashes> ownHashes) {
    RoutePlan plan =
        ((RequestRouter.Pick.Ok) router.pick(prehashed, ownHashes, Set.of(), 0)).plan();
    plan.booking().release();
    return plan;
  }

  @Benchmark
  public RoutePlan noneDiverging() {
    return pickAndRelease(Map.of());
  }

  @Benchmark
  public RoutePlan oneVariantDiverging() {
    return pickAndRelease(own);
  }
}
