package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BlockTableTest {

  @Test
  void behavesLikeAMapOfBitsetsThroughGrowthTombstonesAndWidening() {
    Random r = new Random(7);
    BlockTable t = new BlockTable();
    Map<Long, Set<Integer>> ref = new HashMap<>();
    long[] keys = r.longs(20_000).toArray();
    int slots = 8;
    for (int op = 0; op < 300_000; op++) {
      if (op == 100_000) {
        slots = 130; // widen to three words mid-run, with data present
        t.ensureSlots(slots);
      }
      long k = keys[r.nextInt(keys.length)];
      int slot = r.nextInt(slots);
      Set<Integer> held = ref.computeIfAbsent(k, x -> new HashSet<>());
      if (r.nextInt(3) > 0) {
        assertThat(t.set(k, slot)).isEqualTo(held.add(slot));
      } else {
        assertThat(t.clear(k, slot)).isEqualTo(held.remove(slot));
      }
      if (held.isEmpty()) {
        ref.remove(k);
      }
    }
    assertThat(t.size()).isEqualTo(ref.size());
    for (long k : keys) {
      Set<Integer> held = ref.getOrDefault(k, Set.of());
      for (int s = 0; s < slots; s++) {
        assertThat(t.contains(k, s)).isEqualTo(held.contains(s));
      }
    }
  }

  @Test
  void matchStopsWhenNoSlotIsStillInItsRun() {
    BlockTable t = new BlockTable();
    long[] req = {11, 12, 13, 14};
    t.set(11, 0);
    t.set(12, 0);
    t.set(11, 1);
    t.set(14, 1);
    int[] hits = new int[64];
    int lookups = t.match(req, req.length, new long[] {0b111}, hits);
    assertThat(hits[0]).isEqualTo(2);
    assertThat(hits[1]).isEqualTo(1);
    assertThat(hits[2]).isZero();
    assertThat(lookups).isEqualTo(3);
  }

  @Test
  void hashesZeroAndOneAreStoredFoldedOntoTwoAndThree() {
    BlockTable t = new BlockTable();
    assertThat(t.set(0, 3)).isTrue();
    assertThat(t.set(1, 4)).isTrue();
    assertThat(t.contains(0, 3)).isTrue();
    assertThat(t.contains(1, 4)).isTrue();
    // The documented fold: 0 and 2 share an entry.
    assertThat(t.contains(2, 3)).isTrue();
    assertThat(t.clear(0, 3)).isTrue();
    assertThat(t.size()).isEqualTo(1);
  }

  /**
   * Over several words of slots, with most words holding no slot still in its run (the case the
   * wide match skips): every active slot's run equals a naive count.
   */
  @Test
  void wideMatchAgreesWithANaiveCount() {
    Random r = new Random(11);
    for (int trial = 0; trial < 200; trial++) {
      BlockTable t = new BlockTable();
      int slots = 65 + r.nextInt(1_000);
      t.ensureSlots(slots);
      long[] req = r.longs(1 + r.nextInt(300)).toArray();
      int[] runs = new int[slots];
      for (int s = 0; s < slots; s++) {
        // Most slots hold nothing of the request; a few hold a prefix, some with a gap after it.
        runs[s] = r.nextInt(8) == 0 ? r.nextInt(req.length + 1) : 0;
        for (int i = 0; i < runs[s]; i++) {
          t.set(req[i], s);
        }
        if (runs[s] + 1 < req.length && r.nextBoolean()) {
          t.set(req[runs[s] + 1], s); // held after the gap: not part of the run
        }
      }
      long[] active = new long[(slots + 63) / 64];
      for (int s = 0; s < slots; s++) {
        if (r.nextInt(4) > 0) {
          active[s >> 6] |= 1L << (s & 63);
        }
      }
      int[] hits = new int[active.length * 64];
      java.util.Arrays.fill(hits, -1);
      t.match(req, req.length, active, hits);
      for (int s = 0; s < slots; s++) {
        boolean on = (active[s >> 6] & (1L << (s & 63))) != 0;
        assertThat(hits[s])
            .as("slot %d of %d, trial %d", s, slots, trial)
            .isEqualTo(on ? runs[s] : -1);
      }
    }
  }

  /**
   * Above {@link BlockTable#DENSE_MAX_WORDS} words each key holds a cell: up to two holders inline,
   * a pool bitset from the third on. Keys gaining and losing many holders (inline → pool → empty →
   * reused pool entries), through a widening from dense to sparse mid-run, agree with a map of sets
   * in contains, size and match.
   */
  @Test
  void sparseCellsAgreeWithAMapOfSetsThroughPoolReuseAndWidening() {
    Random r = new Random(13);
    BlockTable t = new BlockTable();
    Map<Long, Set<Integer>> ref = new HashMap<>();
    long[] keys = r.longs(3_000).toArray();
    int slots = 100;
    t.ensureSlots(slots);
    for (int op = 0; op < 400_000; op++) {
      if (op == 50_000) {
        slots = 1_024; // dense (2 words) to sparse (16 words) with data present
        t.ensureSlots(slots);
      }
      // A few hot keys collect many holders; most keep one or two.
      long k = r.nextInt(10) == 0 ? keys[r.nextInt(20)] : keys[r.nextInt(keys.length)];
      int slot = r.nextInt(slots);
      Set<Integer> held = ref.computeIfAbsent(k, x -> new HashSet<>());
      if (r.nextInt(5) > 1) {
        assertThat(t.set(k, slot)).isEqualTo(held.add(slot));
      } else if (!held.isEmpty() && r.nextBoolean()) {
        int victim = held.iterator().next();
        assertThat(t.clear(k, victim)).isTrue();
        held.remove(victim);
      } else {
        assertThat(t.clear(k, slot)).isEqualTo(held.remove(slot));
      }
      if (held.isEmpty()) {
        ref.remove(k);
      }
    }
    assertThat(t.size()).isEqualTo(ref.size());
    long[] all = new long[16];
    java.util.Arrays.fill(all, -1L);
    int[] hits = new int[1_024];
    for (long k : keys) {
      Set<Integer> held = ref.getOrDefault(k, Set.of());
      for (int s = 0; s < slots; s++) {
        assertThat(t.contains(k, s)).as("key %d slot %d", k, s).isEqualTo(held.contains(s));
      }
      t.match(new long[] {k}, 1, all, hits);
      for (int s = 0; s < slots; s++) {
        assertThat(hits[s]).isEqualTo(held.contains(s) ? 1 : 0);
      }
    }
  }

  /** At 1,024 slots a block one source holds costs its key and one cell, not 16 mask words. */
  @Test
  void aSparseTableCostsAboutSixteenBytesPerSingleHolderKey() {
    BlockTable t = new BlockTable();
    t.ensureSlots(1_024);
    Random r = new Random(3);
    int n = 200_000;
    for (int i = 0; i < n; i++) {
      t.set(r.nextLong(), r.nextInt(1_024));
    }
    assertThat(t.size()).isEqualTo(n);
    // 16 bytes per table slot at a fill between 0.5 and 0.75 (dense: 136 bytes per slot).
    assertThat((double) t.tableBytes() / n).isLessThan(40.0);
  }

  /**
   * A reader matching while the writer churns holders (inline cells, pool bitsets freed and reused
   * for other keys, growth) never reports a slot that never held a block: only even slots are ever
   * set.
   */
  @Test
  void aConcurrentSparseReaderNeverSeesAHolderThatNeverWas() throws Exception {
    BlockTable t = new BlockTable();
    t.ensureSlots(512);
    long[] chain = new Random(5).longs(64).toArray();
    java.util.concurrent.atomic.AtomicBoolean stop =
        new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicReference<String> wrong =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread reader =
        new Thread(
            () -> {
              long[] all = new long[8];
              java.util.Arrays.fill(all, -1L);
              int[] hits = new int[512];
              while (!stop.get() && wrong.get() == null) {
                t.match(chain, chain.length, all, hits);
                for (int s = 1; s < 512; s += 2) {
                  if (hits[s] != 0) {
                    wrong.set("odd slot " + s + " had a run of " + hits[s]);
                  }
                }
              }
            });
    reader.start();
    Random r = new Random(9);
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(2);
    long[] filler = r.longs(50_000).toArray();
    int f = 0;
    while (System.nanoTime() < deadline && wrong.get() == null) {
      for (int j = 0; j < 1_000; j++) {
        // Chain blocks only ever on even slots, other keys (whose pool entries the chain's reuse)
        // only on odd ones: a misread cell or bitset would show an odd slot in the chain's run.
        boolean onChain = r.nextBoolean();
        long k = onChain ? chain[r.nextInt(chain.length)] : filler[f++ % filler.length];
        int slot = 2 * r.nextInt(256) + (onChain ? 0 : 1);
        if (r.nextInt(3) > 0) {
          t.set(k, slot);
        } else {
          t.clear(k, slot);
        }
      }
    }
    stop.set(true);
    reader.join(10_000);
    assertThat(wrong.get()).isNull();
  }

  /**
   * Sources joining a wide fleet one by one widen the slots 64 at a time; in the sparse layout that
   * re-strides the overflow pool and never rebuilds the table (which made a warm start from 1,000
   * snapshots rebuild a 10 M-key table every 64 sources), and every holder survives it.
   */
  @Test
  void wideningASparseTableKeepsItsKeysAndDoesNotRebuildIt() {
    BlockTable t = new BlockTable();
    t.ensureSlots(129);
    Random r = new Random(31);
    long[] keys = r.longs(5_000).toArray();
    for (int i = 0; i < keys.length; i++) {
      for (int h = 0; h <= i % 5; h++) {
        t.set(keys[i], (i + 37 * h) % 129);
      }
    }
    int before = t.rebuilds();
    for (int slots = 193; slots <= 1_024; slots += 64) {
      t.ensureSlots(slots);
    }
    assertThat(t.rebuilds()).isEqualTo(before);
    assertThat(t.slotCapacity()).isEqualTo(1_024);
    for (int i = 0; i < keys.length; i++) {
      for (int h = 0; h <= i % 5; h++) {
        assertThat(t.contains(keys[i], (i + 37 * h) % 129)).isTrue();
      }
      assertThat(t.set(keys[i], 1_000)).isTrue(); // a slot only the widened pool has
      assertThat(t.contains(keys[i], 1_000)).isTrue();
    }
    assertThat(t.size()).isEqualTo(keys.length);
  }
}
