package io.infera.router.routing;

import io.infera.router.config.DecodeDemandConfig;
import io.infera.router.config.PolicyConfig;
import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.BenchIndex;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.RequestHashes;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.DecodeDemand;
import io.infera.router.policy.InputTokens;
import io.infera.router.policy.LoadTracker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A prefill/decode pair pick with hashing excluded over 64 workers (32 prefill, 32 decode of two
 * data-parallel ranks each, so 64 decode targets) holding 1M index entries, a 2,000-block prompt:
 * decode input demand {@code off} against {@code shadow} and {@code on}, which add the demand
 * projection, the choice and the reservation inside the pick lock (and its release).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx4g"})
public class DecodeDemandPickBench {

  @Param({"off", "shadow", "on"})
  public String demand;

  BenchIndex bench;
  RequestRouter router;
  RequestHashes prehashed;
  InputTokens input;

  @Setup
  public void setup() {
    bench = BenchIndex.build(1_000_000, false, 11);
    Fleet fleet = new Fleet(3, 1000, 30_000, System::currentTimeMillis);
    List<WorkerInfo> infos = new ArrayList<>();
    int i = 0;
    for (WorkerId id : bench.workers) {
      boolean decode = i++ % 2 == 1;
      infos.add(
          new WorkerInfo(
              id,
              "http://127.0.0.1:1",
              decode ? Role.DECODE : Role.PREFILL,
              "sglang",
              decode ? 2 : 1,
              null,
              null,
              WorkerInfo.Readiness.READY,
              decode ? "decode" : "prefill"));
    }
    fleet.apply(infos);
    router =
        new RequestRouter(
            fleet, bench.index, new LoadTracker(), PolicyConfig.defaults(), null, null);
    DecodeDemand table = new DecodeDemand();
    router.attachDecodeDemand(
        new DecodeDemandConfig(
            DecodeDemandConfig.Mode.parse(demand), 0, DecodeDemandConfig.GuardRelease.DECODE),
        table,
        new DecodeDemandMeters(table, new SimpleMeterRegistry()));
    prehashed =
        RequestHashes.of(new BlockHasher(BenchIndex.PAGE).requestHashes(bench.promptTokens, 0));
    input = new InputTokens(bench.promptTokens.length, 1, true, false);
  }

  private RequestRouter.Pick.Pair pickAndRelease() {
    RequestRouter.Pick.Pair p =
        (RequestRouter.Pick.Pair) router.pick(prehashed, input, Set.of(), 0);
    p.prefill().release();
    p.decode().release();
    return p;
  }

  @Benchmark
  public RequestRouter.Pick.Pair pairPickExcludingHashing() {
    return pickAndRelease();
  }

  @Benchmark
  @Threads(2)
  public RequestRouter.Pick.Pair pairPickExcludingHashingTwoThreads() {
    return pickAndRelease();
  }
}
