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
 * The production pick as the proxy calls it ({@link RequestRouter#pick}) over 64 workers holding 1M
 * index entries, a 2,000-block prompt, in two parts so each number says what it includes:
 *
 * <ul>
 *   <li>{@code pickExcludingHashing} (and {@code …TwoThreads}): the pick cost with hashing excluded
 *       — fleet lookup, index match, load snapshot, kv-aware selection and booking under the pick
 *       lock, and the release — on block hashes computed once in setup. This is the number the
 *       pick-cost budget judges.
 *   <li>{@code pickIncludingHashing} (and {@code …TwoThreads}): the same pick after hashing the
 *       prompt into block hashes, what a request pays end to end; hashing alone is judged by {@code
 *       BlockHasherBench}.
 * </ul>
 *
 * <p>The two-thread variants pick at once (the pick lock's cost under contention).
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
  long[] prehashed;

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
    prehashed = hasher.requestHashes(bench.promptTokens, 0);
  }

  private RoutePlan pickAndRelease(long[] hashes) {
    RoutePlan plan = ((RequestRouter.Pick.Ok) router.pick(hashes, Set.of(), 0)).plan();
    plan.booking().release();
    return plan;
  }

  /** The pick alone: hashes computed once in setup (the pick never mutates them). */
  @Benchmark
  public RoutePlan pickExcludingHashing() {
    return pickAndRelease(prehashed);
  }

  @Benchmark
  @Threads(2)
  public RoutePlan pickExcludingHashingTwoThreads() {
    return pickAndRelease(prehashed);
  }

  /** Hashing the 2,000-block prompt, then the pick. */
  @Benchmark
  public RoutePlan pickIncludingHashing() {
    return pickAndRelease(hasher.requestHashes(bench.promptTokens, 0));
  }

  @Benchmark
  @Threads(2)
  public RoutePlan pickIncludingHashingTwoThreads() {
    return pickAndRelease(hasher.requestHashes(bench.promptTokens, 0));
  }
}
