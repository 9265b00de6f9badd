package io.infera.router.kv;

import java.util.Random;
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
 * A request's page-size chain (16-token blocks) for a 2,000-block prompt whose first 1,900 blocks
 * were copied from an earlier prompt by the tokenizer's prefix cache: {@code cold} hashes all 2,000
 * blocks (no memo), {@code sharing1900} reuses the earlier prompt's remembered chain and hashes the
 * last 100 ({@link ChainMemo}). Target: the shared case costs at most 10 % of the cold one.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ChainReuseBench {

  static final int PAGE = 16;
  static final int BLOCKS = 2_000;
  static final int SHARED = 1_900;
  static final int[] NONE = new int[0];

  RequestHasher plain;
  RequestHasher memoized;
  int[] earlier;
  int[] now;

  @Setup
  public void setup() {
    Random r = new Random(1);
    earlier = r.ints(BLOCKS * PAGE, 0, 150_000).toArray();
    now = earlier.clone();
    int[] tail = r.ints((BLOCKS - SHARED) * PAGE, 0, 150_000).toArray();
    System.arraycopy(tail, 0, now, SHARED * PAGE, tail.length);
    plain = new RequestHasher(PAGE);
    memoized = new RequestHasher(PAGE, new ChainMemo());
    memoized.hash(earlier, 0, NONE);
  }

  @Benchmark
  public long[] cold() {
    return plain.hash(now, 0, NONE).base();
  }

  @Benchmark
  public long[] sharing1900() {
    return memoized.hash(now, 0, NONE, earlier, SHARED * PAGE).base();
  }
}
