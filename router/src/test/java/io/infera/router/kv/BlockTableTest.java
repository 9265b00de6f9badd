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
}
