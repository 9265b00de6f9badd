package io.infera.router.policy;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.Role;
import io.infera.router.kv.BenchIndex;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.MatchResult;
import java.util.List;
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
 * The routing decision of one request after tokenization: hash a 2,000-block prompt, match it
 * against 64 workers holding 1M entries, snapshot load, select (kv-aware), book and release.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx4g"})
public class RequestPathBench {

  BenchIndex fleet;
  List<Worker> workers;
  LoadTracker tracker;
  RoutingPolicy policy;
  BlockHasher hasher;

  @Setup
  public void setup() {
    fleet = BenchIndex.build(1_000_000, false, 11);
    workers = fleet.workers.stream().map(id -> new Worker(id, Role.MIXED)).toList();
    tracker = new LoadTracker();
    policy = RoutingPolicy.of(PolicyConfig.defaults());
    hasher = new BlockHasher(BenchIndex.PAGE);
  }

  @Benchmark
  public Decision route() {
    long[] hashes = hasher.requestHashes(fleet.promptTokens, 0);
    MatchResult m = fleet.index.match(hashes);
    Decision d = policy.select(workers, Overlap.of(m), tracker.snapshot(workers));
    try (Booking b = tracker.book(d.winner(), hashes, hashes.length - d.winnerScore().hits())) {
      return d;
    }
  }
}
