package io.infera.router.kv;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Hashing throughput as bytes of token data per nanosecond (= GB/s): a 2,000-block prompt hashed as
 * one chain, at page sizes 16 and 64. Target ≥ 2 GB/s.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class BlockHasherBench {

  static final int BLOCKS = 2000;

  /** A prompt and a hasher for one page size. */
  public abstract static class Prompt {
    BlockHasher hasher;
    int[] tokens;
    long[] out;

    void init(int page) {
      hasher = new BlockHasher(page);
      tokens = new Random(1).ints(BLOCKS * page, 0, 150_000).toArray();
      out = new long[BLOCKS];
    }

    long hash() {
      return hasher.hashChain(tokens, 0, tokens.length, 0, out, 0) + out[BLOCKS - 1];
    }
  }

  /** 16-token pages. */
  @State(Scope.Thread)
  public static class Page16 extends Prompt {
    @Setup
    public void setup() {
      init(16);
    }
  }

  /** 64-token pages. */
  @State(Scope.Thread)
  public static class Page64 extends Prompt {
    @Setup
    public void setup() {
      init(64);
    }
  }

  @Benchmark
  @OperationsPerInvocation(BLOCKS * 16 * 4)
  public long page16(Page16 p) {
    return p.hash();
  }

  @Benchmark
  @OperationsPerInvocation(BLOCKS * 64 * 4)
  public long page64(Page64 p) {
    return p.hash();
  }
}
