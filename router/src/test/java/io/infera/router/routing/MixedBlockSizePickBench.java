package io.infera.router.routing;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.BenchIndex;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.RequestHasher;
import io.infera.router.kv.RequestHashes;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.LoadTracker;
import java.util.ArrayList;
import java.util.Arrays;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link RouterPickBench}'s pick when part of the fleet was forced to 64-token blocks: the same 64
 * workers at 16 holding 1M entries, plus 8 workers at 64 holding up to the whole 2,000-block prompt
 * (500 blocks of 64). Each pick hashes the prompt at 16 and at 64 and matches both chains. Compare
 * with {@code RouterPickBench.pickIncludingHashing}, the single-size cost (hashing included).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx4g"})
public class MixedBlockSizePickBench {

  static final int FORCED = 64;
  static final int FORCED_WORKERS = 8;

  BenchIndex bench;
  RequestRouter router;
  RequestHasher hasher;

  @Setup
  public void setup() {
    bench = BenchIndex.build(1_000_000, false, 11);
    List<WorkerId> all = new ArrayList<>(bench.workers);
    long engine = 1L << 40;
    int forcedBlocks = bench.promptTokens.length / FORCED;
    for (int w = 0; w < FORCED_WORKERS; w++) {
      WorkerId id = WorkerId.of("forced-" + w);
      all.add(id);
      int held = (w + 1) * forcedBlocks / FORCED_WORKERS;
      long[] hashes = new long[held];
      for (int i = 0; i < held; i++) {
        hashes[i] = engine++;
      }
      int[] tokens = Arrays.copyOf(bench.promptTokens, held * FORCED);
      KvEvent.BlockStored e =
          new KvEvent.BlockStored(hashes, null, tokens, FORCED, null, null, null, null, null, null);
      bench.index.apply(id, KvEventMessage.NO_SEQ, new EventBatch(0, List.of(e), 0, 0));
    }
    Fleet fleet = new Fleet(3, 1000, 30_000, System::currentTimeMillis);
    List<WorkerInfo> infos = new ArrayList<>();
    for (WorkerId id : all) {
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
    hasher = new RequestHasher(BenchIndex.PAGE);
  }

  @Benchmark
  public RoutePlan pick() {
    RequestHashes hashes = hasher.hash(bench.promptTokens, 0, bench.index.otherBlockSizes());
    RoutePlan plan = ((RequestRouter.Pick.Ok) router.pick(hashes, Set.of(), 0)).plan();
    plan.booking().release();
    return plan;
  }
}
