package io.infera.router.kv;

import static io.infera.router.kv.Events.batch;
import static io.infera.router.kv.Events.removed;
import static io.infera.router.kv.Events.stored;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The sizing rule of docs/operations.md ("Sizing the index"): whatever the engines send, the
 * index's tables stay within {@link PrefixIndex#heapBytes} of its cap, and the default cap fits the
 * operator's default router memory.
 */
class IndexSizingTest {

  private static final int P = 4;
  private static final long NO_SEQ = KvEventMessage.NO_SEQ;
  // Tables that never shrink below their floor: three maps per source, the shared table's minimum.
  private static final long PER_SOURCE_FLOOR = 3 * 2 * (16 + 8 * 64);
  // The rule's headroom for a rebuild of the shared table, which tableBytes() never sees.
  private static final long REBUILD = 32;

  @Test
  void theDefaultCapFitsTheOperatorsDefaultRouter() {
    long heap = (long) (0.70 * (1L << 30));
    long need = PrefixIndex.routerHeapBytes(IndexLimits.DEFAULT_MAX_BLOCKS, 64);
    assertThat(need).isLessThanOrEqualTo(heap);
    // The figures the docs quote.
    assertThat(PrefixIndex.heapBytes(IndexLimits.DEFAULT_MAX_BLOCKS, 64) >> 20).isEqualTo(247);
    assertThat(need >> 20).isEqualTo(695);
    assertThat(PrefixIndex.heapBytes(1000, 65)).isEqualTo(1000 * (144 + 40));
    assertThat(PrefixIndex.heapBytes(1000, 129)).isEqualTo(1000 * (144 + 80));
  }

  @Test
  void churnAtTheCapStaysWithinTheRule() {
    int sources = 64;
    long cap = 60_000;
    PrefixIndex index =
        new PrefixIndex(
            P, new IndexLimits(cap / 8, cap, Double.POSITIVE_INFINITY, 1), System::nanoTime);
    Random r = new Random(14);
    List<List<long[]>> live = new ArrayList<>();
    for (int s = 0; s < sources; s++) {
      live.add(new ArrayList<>());
    }
    long next = 1;
    long worst = 0;
    for (int round = 0; round < 3_000; round++) {
      int s = r.nextInt(sources);
      WorkerId w = WorkerId.of("w" + s);
      if (r.nextInt(8) > 0) {
        // A run of fresh blocks; past the caps it is refused, which is what is measured.
        int n = 1 + r.nextInt(400);
        long[] engine = new long[n];
        for (int i = 0; i < n; i++) {
          engine[i] = next++;
        }
        int[] tokens = IntStream.range(0, n * P).map(i -> r.nextInt()).toArray();
        index.apply(w, NO_SEQ, batch(stored(P, engine, null, tokens)));
        live.get(s).add(engine);
      } else {
        // Evict most of a source: maps must give memory back, the shared table gets tombstones.
        List<long[]> l = live.get(s);
        int keep = l.size() / 4;
        while (l.size() > keep) {
          index.apply(w, NO_SEQ, batch(removed(l.remove(l.size() - 1))));
        }
      }
      assertThat(index.heldBlocks()).isLessThanOrEqualTo(cap);
      long limit = PrefixIndex.heapBytes(cap, sources) - REBUILD * cap + sources * PER_SOURCE_FLOOR;
      long bytes = index.tableBytes();
      worst = Math.max(worst, bytes);
      assertThat(bytes).as("round %d", round).isLessThanOrEqualTo(limit);
    }
    assertThat(index.stats().dropped(DropReason.INDEX_FULL)).as("the cap was reached").isPositive();
    System.out.printf(
        "IndexSizingTest churn cap=%d worstTableBytesPerCapBlock=%.1f rule=%d%n",
        cap, worst / (double) cap, PrefixIndex.BYTES_PER_BLOCK);
  }

  @Test
  void oneSourceFillingAndEmptyingRepeatedlyStaysWithinTheRule() {
    long cap = 50_000;
    PrefixIndex index =
        new PrefixIndex(
            P, new IndexLimits(cap, cap, Double.POSITIVE_INFINITY, 1), System::nanoTime);
    WorkerId w = WorkerId.of("w");
    Random r = new Random(7);
    long next = 1;
    for (int cycle = 0; cycle < 6; cycle++) {
      List<long[]> l = new ArrayList<>();
      while (index.heldBlocks() < cap) {
        long[] engine = new long[500];
        for (int i = 0; i < engine.length; i++) {
          engine[i] = next++;
        }
        int[] tokens = IntStream.range(0, engine.length * P).map(i -> r.nextInt()).toArray();
        index.apply(w, NO_SEQ, batch(stored(P, engine, null, tokens)));
        l.add(engine);
      }
      for (long[] e : l) {
        index.apply(w, NO_SEQ, batch(removed(e)));
      }
      assertThat(index.heldBlocks()).isZero();
      assertThat(index.tableBytes())
          .isLessThanOrEqualTo(PrefixIndex.heapBytes(cap, 1) - REBUILD * cap + PER_SOURCE_FLOOR);
    }
  }
}
