package io.infera.router.kv;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Router hash → bitset of source slots holding that block: the one structure {@code match} reads.
 *
 * <p>Concurrency: one writer ({@link #set}, {@link #clear}, {@link #ensureSlots}), any number of
 * lock-free readers ({@link #match}). Open addressing with linear probing and tombstones, so a key
 * never moves while a table is live: the writer publishes a slot's mask before its key (release)
 * and readers re-check the key after reading the mask (acquire), so a reader never attributes one
 * key's mask to another. Growth and tombstone clean-up build a new table and publish it through a
 * volatile field; a reader already walking the old one sees a slightly stale view, never a torn
 * one. Every table keeps at least a quarter of its slots empty, so probes always terminate.
 *
 * <p>Keys 0 and 1 mark empty and deleted slots; the router hashes 0 and 1 are folded onto 2 and 3
 * (a 2^-63 extra collision chance, the same order as any 64-bit hash collision).
 */
final class BlockTable {

  private static final long EMPTY = 0L;
  private static final long TOMBSTONE = 1L;
  private static final long PHI = 0x9E3779B97F4A7C15L;
  private static final int MIN_CAPACITY = 64;
  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

  /** One immutable-shape generation of the table; masks hold {@code words} longs per slot. */
  private static final class Table {
    final long[] keys;
    final long[] masks;
    final int words;
    final int capacity;
    final int maxFill;

    Table(int capacity, int words) {
      this.keys = new long[capacity];
      this.masks = new long[capacity * words];
      this.words = words;
      this.capacity = capacity;
      this.maxFill = (int) (capacity * 0.75);
    }
  }

  private volatile Table table = new Table(MIN_CAPACITY, 1);
  private int size;
  private int tombstones;

  static long normalize(long hash) {
    return (hash == EMPTY || hash == TOMBSTONE) ? hash + 2 : hash;
  }

  private static int index(long key, int capacity) {
    return (int) ((((key * PHI) >>> 32) * capacity) >>> 32);
  }

  /** Distinct router hashes held by at least one source. */
  int size() {
    return size;
  }

  /** Heap bytes of the live table's arrays. */
  long tableBytes() {
    Table t = table;
    return 16 + 8L * t.keys.length + 16 + 8L * t.masks.length;
  }

  /** Slots the bitsets can hold now (a multiple of 64). */
  int slotCapacity() {
    return table.words * 64;
  }

  /** Writer: widens the bitsets so that slot numbers below {@code slots} fit. */
  void ensureSlots(int slots) {
    Table t = table;
    int words = (slots + 63) >>> 6;
    if (words > t.words) {
      rebuild(t.capacity, words);
    }
  }

  /**
   * Writer: reads the hash's home slot (see {@link LongLongMap#touch}): issued for a batch of
   * blocks before updating them, so their cache misses overlap.
   */
  long touch(long hash) {
    Table t = table;
    return t.keys[index(normalize(hash), t.capacity)];
  }

  /** Writer: marks {@code slot} as holding {@code hash}; true when it did not before. */
  boolean set(long hash, int slot) {
    long k = normalize(hash);
    Table t = table;
    int w = slot >>> 6;
    long bit = 1L << slot;
    long[] keys = t.keys;
    int cap = t.capacity;
    int i = index(k, cap);
    int free = -1;
    while (true) {
      long cur = keys[i];
      if (cur == k) {
        int m = i * t.words + w;
        long old = t.masks[m];
        if ((old & bit) != 0) {
          return false;
        }
        LONGS.setRelease(t.masks, m, old | bit);
        return true;
      }
      if (cur == EMPTY) {
        break;
      }
      if (cur == TOMBSTONE && free < 0) {
        free = i;
      }
      i = i + 1 == cap ? 0 : i + 1;
    }
    int at = free >= 0 ? free : i;
    // Empty and deleted slots have all-zero masks: publish the bit, then the key.
    LONGS.setRelease(t.masks, at * t.words + w, bit);
    LONGS.setRelease(keys, at, k);
    size++;
    if (free >= 0) {
      tombstones--;
    } else if (size + tombstones > t.maxFill) {
      grow(t);
    }
    return true;
  }

  /** Writer: marks {@code slot} as no longer holding {@code hash}; true when it did before. */
  boolean clear(long hash, int slot) {
    long k = normalize(hash);
    Table t = table;
    int i = find(t, k);
    if (i < 0) {
      return false;
    }
    int words = t.words;
    int m = i * words + (slot >>> 6);
    long bit = 1L << slot;
    long old = t.masks[m];
    if ((old & bit) == 0) {
      return false;
    }
    long now = old & ~bit;
    LONGS.setRelease(t.masks, m, now);
    if (now == 0 && allZero(t.masks, i * words, words)) {
      LONGS.setRelease(t.keys, i, TOMBSTONE);
      size--;
      tombstones++;
    }
    return true;
  }

  /** Writer or reader: true when {@code slot} holds {@code hash}. */
  boolean contains(long hash, int slot) {
    long k = normalize(hash);
    Table t = table;
    int i = find(t, k);
    if (i < 0) {
      return false;
    }
    long mask = (long) LONGS.getAcquire(t.masks, i * t.words + (slot >>> 6));
    return (long) LONGS.getAcquire(t.keys, i) == k && (mask & (1L << slot)) != 0;
  }

  /**
   * Reader: for every slot set in {@code active}, the length of the longest leading run of {@code
   * hashes} that slot holds, written to {@code hits[slot]}. Stops as soon as no active slot is
   * still in its run. Never mutates the table.
   *
   * @param active bitset of slots to report (others are left untouched in {@code hits})
   * @param hits output, indexed by slot, at least {@code 64 * active.length} long
   * @return the number of table lookups made
   */
  int match(long[] hashes, int count, long[] active, int[] hits) {
    Table t = table;
    if (t.words == 1 && active.length == 1) {
      return match1(t, hashes, count, active[0], hits);
    }
    return matchWide(t, hashes, count, active, hits);
  }

  private static int match1(Table t, long[] hashes, int count, long active, int[] hits) {
    long[] keys = t.keys;
    long[] masks = t.masks;
    int cap = t.capacity;
    long alive = active;
    int i = 0;
    for (; i < count && alive != 0; i++) {
      long k = normalize(hashes[i]);
      int p = index(k, cap);
      long m = 0;
      while (true) {
        long cur = (long) LONGS.getAcquire(keys, p);
        if (cur == k) {
          m = (long) LONGS.getAcquire(masks, p);
          if ((long) LONGS.getAcquire(keys, p) != k) {
            m = 0;
          }
          break;
        }
        if (cur == EMPTY) {
          break;
        }
        p = p + 1 == cap ? 0 : p + 1;
      }
      long dropped = alive & ~m;
      while (dropped != 0) {
        hits[Long.numberOfTrailingZeros(dropped)] = i;
        dropped &= dropped - 1;
      }
      alive &= m;
    }
    while (alive != 0) {
      hits[Long.numberOfTrailingZeros(alive)] = i;
      alive &= alive - 1;
    }
    return i;
  }

  private static int matchWide(Table t, long[] hashes, int count, long[] active, int[] hits) {
    long[] keys = t.keys;
    long[] masks = t.masks;
    int cap = t.capacity;
    int words = t.words;
    int aw = active.length;
    long[] alive = active.clone();
    int live = 0;
    for (long a : alive) {
      live |= a != 0 ? 1 : 0;
    }
    int i = 0;
    for (; i < count && live != 0; i++) {
      long k = normalize(hashes[i]);
      int p = index(k, cap);
      int found = -1;
      while (true) {
        long cur = (long) LONGS.getAcquire(keys, p);
        if (cur == k) {
          found = p;
          break;
        }
        if (cur == EMPTY) {
          break;
        }
        p = p + 1 == cap ? 0 : p + 1;
      }
      live = 0;
      for (int w = 0; w < aw; w++) {
        if (alive[w] == 0) {
          continue; // no slot of this word is still in its run: its mask is not needed
        }
        long m = 0;
        if (found >= 0 && w < words) {
          m = (long) LONGS.getAcquire(masks, found * words + w);
        }
        long dropped = alive[w] & ~m;
        while (dropped != 0) {
          hits[(w << 6) + Long.numberOfTrailingZeros(dropped)] = i;
          dropped &= dropped - 1;
        }
        alive[w] &= m;
        live |= alive[w] != 0 ? 1 : 0;
      }
      if (found >= 0 && (long) LONGS.getAcquire(keys, found) != k) {
        // The slot was reused while we read it: treat the block as held by nobody.
        for (int w = 0; w < aw; w++) {
          long dropped = alive[w];
          while (dropped != 0) {
            hits[(w << 6) + Long.numberOfTrailingZeros(dropped)] = i;
            dropped &= dropped - 1;
          }
          alive[w] = 0;
        }
        live = 0;
      }
    }
    for (int w = 0; w < aw; w++) {
      long a = alive[w];
      while (a != 0) {
        hits[(w << 6) + Long.numberOfTrailingZeros(a)] = i;
        a &= a - 1;
      }
    }
    return i;
  }

  private static int find(Table t, long k) {
    long[] keys = t.keys;
    int cap = t.capacity;
    int i = index(k, cap);
    while (true) {
      long cur = (long) LONGS.getAcquire(keys, i);
      if (cur == k) {
        return i;
      }
      if (cur == EMPTY) {
        return -1;
      }
      i = i + 1 == cap ? 0 : i + 1;
    }
  }

  private static boolean allZero(long[] masks, int from, int words) {
    for (int w = 0; w < words; w++) {
      if (masks[from + w] != 0) {
        return false;
      }
    }
    return true;
  }

  private void grow(Table t) {
    // Mostly tombstones: clean up in place-size; mostly live keys: grow by 1.5x.
    int capacity = size > t.capacity / 2 ? LongLongMap.grown(t.capacity) : t.capacity;
    rebuild(capacity, t.words);
  }

  private void rebuild(int capacity, int words) {
    Table old = table;
    Table t = new Table(Math.max(capacity, MIN_CAPACITY), words);
    int oldWords = old.words;
    for (int j = 0; j < old.capacity; j++) {
      long k = old.keys[j];
      if (k == EMPTY || k == TOMBSTONE) {
        continue;
      }
      int i = index(k, t.capacity);
      while (t.keys[i] != EMPTY) {
        i = i + 1 == t.capacity ? 0 : i + 1;
      }
      t.keys[i] = k;
      System.arraycopy(old.masks, j * oldWords, t.masks, i * words, Math.min(oldWords, words));
    }
    tombstones = 0;
    table = t;
  }
}
