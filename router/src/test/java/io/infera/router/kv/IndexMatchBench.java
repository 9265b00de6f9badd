package io.infera.router.kv;

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
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code match} of a 2,000-block prompt against 64 workers holding 1M entries (see {@link
 * BenchIndex}; the longest holder has the whole prompt, so the match walks all 2,000 blocks).
 * Sample mode: read the p0.50 line. Target ≤ 20 µs median.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx4g"})
public class IndexMatchBench {

  @Param({"unique", "shared"})
  String layout;

  BenchIndex fleet;
  long[] miss;

  @Setup
  public void setup() {
    fleet = BenchIndex.build(1_000_000, layout.equals("shared"), 11);
    miss = new BlockHasher(BenchIndex.PAGE).requestHashes(new int[2000 * 16], 99);
  }

  /** The whole prompt is held by one worker: 2,000 lookups. */
  @Benchmark
  public MatchResult fullPrompt() {
    return fleet.index.match(fleet.prompt);
  }

  /** Nobody holds the first block: one lookup (the floor of the request path). */
  @Benchmark
  public MatchResult coldPrompt() {
    return fleet.index.match(miss);
  }
}
