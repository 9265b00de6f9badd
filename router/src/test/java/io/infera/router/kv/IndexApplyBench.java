package io.infera.router.kv;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Event apply throughput in blocks stored per second, re-hash included, in steady state: 64 workers
 * hold ~1M entries; each invocation applies one BlockStored of 8 chained 16-token blocks on the
 * next worker and one BlockRemoved evicting that worker's oldest 8 blocks (removal time is inside
 * the score, so the figure is conservative). Target ≥ 3M blocks/s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx4g"})
public class IndexApplyBench {

  static final int PAGE = 16;
  static final int WORKERS = 64;
  static final int BLOCKS_PER_EVENT = 8;
  static final int BLOCKS_PER_WORKER = 15_625; // 64 × 15,625 = 1,000,000 entries

  /** The steady-state writer: per worker a growing chain and a FIFO of stored events. */
  public static final class Writer {
    // The router's limits: the caps and reset checks are on the measured path.
    final PrefixIndex index = new PrefixIndex(PAGE, IndexLimits.defaults(), System::nanoTime);
    final WorkerId[] workers = new WorkerId[WORKERS];
    final long[] lastEngine = new long[WORKERS];

    @SuppressWarnings("unchecked")
    final ArrayDeque<long[]>[] live = new ArrayDeque[WORKERS];

    final int[][] tokenPool;
    final boolean evict;
    long nextEngine = 1;
    int turn;
    int pool;

    Writer(long seed) {
      this(seed, true);
    }

    Writer(long seed, boolean evict) {
      this.evict = evict;
      Random r = new Random(seed);
      tokenPool = new int[4096][];
      for (int i = 0; i < tokenPool.length; i++) {
        tokenPool[i] = r.ints(BLOCKS_PER_EVENT * PAGE, 0, 150_000).toArray();
      }
      for (int w = 0; w < WORKERS; w++) {
        workers[w] = WorkerId.of("worker-" + w);
        live[w] = new ArrayDeque<>();
      }
    }

    /** Stores 8 blocks on the next worker, chained on its previous event. */
    void store() {
      int w = turn;
      turn = (turn + 1) % WORKERS;
      long[] engine = new long[BLOCKS_PER_EVENT];
      for (int i = 0; i < engine.length; i++) {
        engine[i] = mix(nextEngine++); // engines send random-looking 64-bit hashes
      }
      Long parent = lastEngine[w] == 0 ? null : lastEngine[w];
      int[] tokens = tokenPool[pool++ & (tokenPool.length - 1)];
      KvEvent.BlockStored e =
          new KvEvent.BlockStored(engine, parent, tokens, PAGE, null, null, null, null, null, null);
      index.apply(workers[w], KvEventMessage.NO_SEQ, new EventBatch(0, List.of(e), 0, 0));
      lastEngine[w] = engine[engine.length - 1];
      live[w].add(engine);
      if (evict && live[w].size() * BLOCKS_PER_EVENT > BLOCKS_PER_WORKER) {
        KvEvent.BlockRemoved rm = new KvEvent.BlockRemoved(live[w].poll(), null, null);
        index.apply(workers[w], KvEventMessage.NO_SEQ, new EventBatch(0, List.of(rm), 0, 0));
      }
    }

    static long mix(long z) {
      z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
      z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
      return z ^ (z >>> 31);
    }

    void fill() {
      for (long i = 0; i < (long) WORKERS * BLOCKS_PER_WORKER / BLOCKS_PER_EVENT; i++) {
        store();
      }
    }
  }

  Writer writer;

  @Setup(Level.Trial)
  public void setup() {
    writer = new Writer(5);
    writer.fill();
  }

  @Benchmark
  @OperationsPerInvocation(BLOCKS_PER_EVENT)
  public void storeAndEvict() {
    writer.store();
  }

  /** Store-only: a fresh index per batch of 125,000 events (1M blocks). */
  @State(Scope.Thread)
  public static class Fresh {
    Writer writer;

    @Setup(Level.Iteration)
    public void setup() {
      writer = new Writer(7, false);
      System.gc();
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 5, batchSize = STORE_ONLY_EVENTS)
  @Measurement(iterations = 10, batchSize = STORE_ONLY_EVENTS)
  public void storeOnly(Fresh f) {
    f.writer.store();
  }

  static final int STORE_ONLY_EVENTS = 1_000_000 / BLOCKS_PER_EVENT;
}
