package io.infera.router.routing;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.BenchIndex;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.LoadTracker;
import java.util.ArrayList;
import java.util.List;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The production pick as the proxy calls it ({@link RequestRouter#pick}): fleet lookup, hashing a
 * 2,000-block prompt, index match over 64 workers holding 1M entries, then load snapshot, kv-aware
 * selection and booking under the pick lock, and the release. One thread, and two threads picking
 * at once (the lock's cost under contention).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx4g"})
public class RouterPickBench {

  BenchIndex bench;
  RequestRouter router;
  BlockHasher hasher;

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
    hasher = new BlockHasher(BenchIndex.PAGE);
  }

  private RoutePlan pickAndRelease() {
    long[] hashes = hasher.requestHashes(bench.promptTokens, 0);
    RoutePlan plan = ((RequestRouter.Pick.Ok) router.pick(hashes, Set.of(), 0)).plan();
    plan.booking().release();
    return plan;
  }

  @Benchmark
  public RoutePlan pick() {
    return pickAndRelease();
  }

  @Benchmark
  @Threads(2)
  public RoutePlan pickTwoThreads() {
    return pickAndRelease();
  }
}
