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
 * <p>Two layouts, chosen by the number of source slots. Up to {@link #DENSE_MAX_WORDS} words (128
 * slots) every key has a dense bitset of {@code words} longs. Above that a bitset per key would
 * cost 8 bytes per 64 slots for every block even when one source holds it (the common case: 128
 * bytes per block at 1,024 slots), so each key has one {@code cell} instead: up to two holders
 * inline ({@code slot + 1} in the low and high 32 bits), or, from the third holder on, the index of
 * a bitset in an overflow pool ({@code ~index}, a negative cell). Readers re-check the key and the
 * cell after reading a pool bitset, as they re-check the key after a dense mask.
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

  /** Above this many 64-slot words a key holds a cell, not a dense bitset (class comment). */
  static final int DENSE_MAX_WORDS = 2;

  /**
   * One immutable-shape generation of the table. Dense: {@code masks} holds {@code words} longs per
   * slot. Sparse: {@code masks} holds one cell per slot and {@code pool} the overflow bitsets,
   * {@code words} longs each.
   */
  private static final class Table {
    final long[] keys;
    final long[] masks;
    final int words;
    final int capacity;
    final int maxFill;
    final boolean sparse;

    /** Sparse: the overflow bitsets; replaced (grown) by the writer, read by readers. */
    volatile long[] pool;

    /** Sparse, writer only: pool entries handed out, and the freed ones for reuse. */
    int poolUsed;

    int[] poolFree = new int[0];
    int poolFreeCount;

    Table(int capacity, int words) {
      this.keys = new long[capacity];
      this.sparse = words > DENSE_MAX_WORDS;
      this.masks = new long[sparse ? capacity : capacity * words];
      this.words = words;
      this.capacity = capacity;
      this.maxFill = (int) (capacity * 0.75);
      this.pool = sparse ? new long[16 * words] : null;
    }

    /**
     * Sparse, writer: the same keys and cells with pool bitsets of {@code words} longs (the entries
     * keep their numbers). Readers of {@code old} keep reading its pool, whose stride their table
     * names: stale after this, never torn.
     */
    Table(Table old, int words) {
      this.keys = old.keys;
      this.masks = old.masks;
      this.sparse = true;
      this.words = words;
      this.capacity = old.capacity;
      this.maxFill = old.maxFill;
      long[] oldPool = old.pool;
      long[] pool = new long[Math.max(16, old.poolUsed) * words];
      for (int e = 0; e < old.poolUsed; e++) {
        System.arraycopy(oldPool, e * old.words, pool, e * words, old.words);
      }
      this.pool = pool;
      this.poolUsed = old.poolUsed;
      this.poolFree = old.poolFree.clone();
      this.poolFreeCount = old.poolFreeCount;
    }

    /** Writer: a zeroed pool entry. */
    int allocate() {
      if (poolFreeCount > 0) {
        int e = poolFree[--poolFreeCount];
        java.util.Arrays.fill(pool, e * words, (e + 1) * words, 0L);
        return e;
      }
      long[] p = pool;
      if ((poolUsed + 1) * words > p.length) {
        pool = java.util.Arrays.copyOf(p, LongLongMap.grown(p.length / words) * words);
      }
      return poolUsed++;
    }

    /** Writer: returns an entry (readers re-check their cell, so its reuse cannot mislead). */
    void release(int e) {
      if (poolFreeCount == poolFree.length) {
        poolFree = java.util.Arrays.copyOf(poolFree, Math.max(16, poolFreeCount * 2));
      }
      poolFree[poolFreeCount++] = e;
    }
  }

  private volatile Table table = new Table(MIN_CAPACITY, 1);
  private int size;
  private int tombstones;
  private int rebuilds;

  static long normalize(long hash) {
    return (hash == EMPTY || hash == TOMBSTONE) ? hash + 2 : hash;
  }

  private static int index(long key, int capacity) {
    return (int) ((((key * PHI) >>> 32) * capacity) >>> 32);
  }

  /**
   * Table rebuilds so far (growth, clean-up, dense widening): a test checks sparse widening skips
   * them.
   */
  int rebuilds() {
    return rebuilds;
  }

  /** Distinct router hashes held by at least one source. */
  int size() {
    return size;
  }

  /** Heap bytes of the live table's arrays. */
  long tableBytes() {
    Table t = table;
    long pool = t.sparse ? 16 + 8L * t.pool.length + 16 + 4L * t.poolFree.length : 0;
    return 16 + 8L * t.keys.length + 16 + 8L * t.masks.length + pool;
  }

  /** Slots the bitsets can hold now (a multiple of 64). */
  int slotCapacity() {
    return table.words * 64;
  }

  /** Writer: widens the bitsets so that slot numbers below {@code slots} fit. */
  void ensureSlots(int slots) {
    Table t = table;
    int words = (slots + 63) >>> 6;
    if (words <= t.words) {
      return;
    }
    if (t.sparse) {
      // Cells name holders by slot number: only the pool's stride changes, not the table.
      table = new Table(t, words);
    } else {
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
    if (t.sparse) {
      return setSparse(t, k, slot);
    }
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

  private boolean setSparse(Table t, long k, int slot) {
    long[] keys = t.keys;
    int cap = t.capacity;
    int i = index(k, cap);
    int free = -1;
    while (true) {
      long cur = keys[i];
      if (cur == k) {
        return addHolder(t, i, slot);
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
    LONGS.setRelease(t.masks, at, (long) slot + 1);
    LONGS.setRelease(keys, at, k);
    size++;
    if (free >= 0) {
      tombstones--;
    } else if (size + tombstones > t.maxFill) {
      grow(t);
    }
    return true;
  }

  /** Writer, sparse: adds {@code slot} to the holders of table slot {@code i}. */
  private static boolean addHolder(Table t, int i, int slot) {
    long cell = t.masks[i];
    if (cell < 0) {
      long[] pool = t.pool;
      int m = (int) ~cell * t.words + (slot >>> 6);
      long bit = 1L << slot;
      long old = pool[m];
      if ((old & bit) != 0) {
        return false;
      }
      LONGS.setRelease(pool, m, old | bit);
      return true;
    }
    long tag = (long) slot + 1;
    long a = cell & 0xFFFF_FFFFL;
    long b = cell >>> 32;
    if (a == tag || b == tag) {
      return false;
    }
    if (b == 0) {
      LONGS.setRelease(t.masks, i, a | (tag << 32));
      return true;
    }
    // A third holder: move the three into a pool bitset, then publish the cell.
    int e = t.allocate();
    long[] pool = t.pool;
    int base = e * t.words;
    for (long holder : new long[] {a - 1, b - 1, slot}) {
      pool[base + (int) (holder >>> 6)] |= 1L << holder;
    }
    LONGS.setRelease(t.masks, i, ~(long) e);
    return true;
  }

  /** Writer, sparse: removes {@code slot} from table slot {@code i}; true when it held it. */
  private boolean removeHolder(Table t, int i, int slot) {
    long cell = t.masks[i];
    boolean empty;
    if (cell < 0) {
      int e = (int) ~cell;
      long[] pool = t.pool;
      int words = t.words;
      int m = e * words + (slot >>> 6);
      long bit = 1L << slot;
      long old = pool[m];
      if ((old & bit) == 0) {
        return false;
      }
      LONGS.setRelease(pool, m, old & ~bit);
      empty = (old & ~bit) == 0 && allZero(pool, e * words, words);
      if (empty) {
        LONGS.setRelease(t.masks, i, 0L);
        t.release(e);
      }
    } else {
      long tag = (long) slot + 1;
      long a = cell & 0xFFFF_FFFFL;
      long b = cell >>> 32;
      long now;
      if (a == tag) {
        now = b;
      } else if (b == tag) {
        now = a;
      } else {
        return false;
      }
      LONGS.setRelease(t.masks, i, now);
      empty = now == 0;
    }
    if (empty) {
      LONGS.setRelease(t.keys, i, TOMBSTONE);
      size--;
      tombstones++;
    }
    return true;
  }

  /** Reader, sparse: whether {@code cell} (read with acquire) lists {@code slot}. */
  private static boolean cellHolds(Table t, long cell, int slot) {
    if (cell < 0) {
      long[] pool = t.pool;
      int m = (int) ~cell * t.words + (slot >>> 6);
      return m < pool.length && ((long) LONGS.getAcquire(pool, m) & (1L << slot)) != 0;
    }
    long tag = (long) slot + 1;
    return (cell & 0xFFFF_FFFFL) == tag || (cell >>> 32) == tag;
  }

  /** Writer: marks {@code slot} as no longer holding {@code hash}; true when it did before. */
  boolean clear(long hash, int slot) {
    long k = normalize(hash);
    Table t = table;
    int i = find(t, k);
    if (i < 0) {
      return false;
    }
    if (t.sparse) {
      return removeHolder(t, i, slot);
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
    if (t.sparse) {
      long cell = (long) LONGS.getAcquire(t.masks, i);
      boolean held = cellHolds(t, cell, slot);
      return (long) LONGS.getAcquire(t.keys, i) == k
          && (long) LONGS.getAcquire(t.masks, i) == cell
          && held;
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
    if (t.sparse) {
      return matchSparse(t, hashes, count, active, hits);
    }
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
    int words = t.words;
    int aw = active.length;
    long[] alive = active.clone();
    // Words [lo, hi) hold every slot still in its run: after the first block of a wide fleet
    // that is usually one word, so later blocks skip the rest.
    int hi = aw;
    while (hi > 0 && alive[hi - 1] == 0) {
      hi--;
    }
    int lo = 0;
    while (lo < hi && alive[lo] == 0) {
      lo++;
    }
    int i = 0;
    for (; i < count && lo < hi; i++) {
      long k = normalize(hashes[i]);
      int found = find(t, k);
      int newLo = hi;
      int newHi = lo;
      for (int w = lo; w < hi; w++) {
        if (alive[w] == 0) {
          continue; // no slot of this word is still in its run: its mask is not needed
        }
        long m = 0;
        if (found >= 0 && w < words) {
          m = (long) LONGS.getAcquire(masks, found * words + w);
        }
        endRuns(hits, w, alive[w] & ~m, i);
        alive[w] &= m;
        if (alive[w] != 0) {
          newLo = Math.min(newLo, w);
          newHi = w + 1;
        }
      }
      lo = newLo;
      hi = newHi;
      if (found >= 0 && (long) LONGS.getAcquire(keys, found) != k) {
        // The slot was reused while we read it: treat the block as held by nobody.
        endAll(hits, alive, lo, hi, i);
        lo = hi;
      }
    }
    endAll(hits, alive, lo, hi, i);
    return i;
  }

  private static int matchSparse(Table t, long[] hashes, int count, long[] active, int[] hits) {
    long[] keys = t.keys;
    long[] cells = t.masks;
    int words = t.words;
    int aw = active.length;
    long[] alive = active.clone();
    // Words [lo, hi) hold every slot still in its run: after the first block of a wide fleet
    // that is usually one word, so later blocks skip the rest.
    int hi = aw;
    while (hi > 0 && alive[hi - 1] == 0) {
      hi--;
    }
    int lo = 0;
    while (lo < hi && alive[lo] == 0) {
      lo++;
    }
    int i = 0;
    for (; i < count && lo < hi; i++) {
      long k = normalize(hashes[i]);
      int p = find(t, k);
      long cell = p >= 0 ? (long) LONGS.getAcquire(cells, p) : 0;
      long[] pool = cell < 0 ? t.pool : null;
      int base = cell < 0 ? (int) ~cell * words : 0;
      if (pool != null && base + words > pool.length) {
        cell = 0; // a pool entry past the pool this reader saw: treat as held by nobody
        pool = null;
      }
      // Inline holders as (word, bit); -1 when absent.
      long ha = cell > 0 ? (cell & 0xFFFF_FFFFL) - 1 : -1;
      long hb = cell > 0 ? (cell >>> 32) - 1 : -1;
      int newLo = hi;
      int newHi = lo;
      for (int w = lo; w < hi; w++) {
        if (alive[w] == 0) {
          continue;
        }
        long m;
        if (pool != null) {
          m = w < words ? (long) LONGS.getAcquire(pool, base + w) : 0;
        } else {
          m = 0;
          if (ha >= 0 && (ha >>> 6) == w) {
            m |= 1L << ha;
          }
          if (hb >= 0 && (hb >>> 6) == w) {
            m |= 1L << hb;
          }
        }
        endRuns(hits, w, alive[w] & ~m, i);
        alive[w] &= m;
        if (alive[w] != 0) {
          newLo = Math.min(newLo, w);
          newHi = w + 1;
        }
      }
      lo = newLo;
      hi = newHi;
      if (cell != 0
          && ((long) LONGS.getAcquire(keys, p) != k || (long) LONGS.getAcquire(cells, p) != cell)) {
        // The slot or its cell changed while we read it: treat the block as held by nobody.
        endAll(hits, alive, lo, hi, i);
        lo = hi;
      }
    }
    endAll(hits, alive, lo, hi, i);
    return i;
  }

  /** Every slot set in {@code bits} (word {@code w}) ends its run at block {@code at}. */
  private static void endRuns(int[] hits, int w, long bits, int at) {
    for (long b = bits; b != 0; b &= b - 1) {
      hits[(w << 6) + Long.numberOfTrailingZeros(b)] = at;
    }
  }

  /**
   * Every slot still in its run (words {@code [lo, hi)} of {@code alive}) ends it at {@code at}.
   */
  private static void endAll(int[] hits, long[] alive, int lo, int hi, int at) {
    for (int w = lo; w < hi; w++) {
      endRuns(hits, w, alive[w], at);
      alive[w] = 0;
    }
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
    long[] holders = new long[words];
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
      if (!t.sparse) {
        System.arraycopy(old.masks, j * oldWords, t.masks, i * words, Math.min(oldWords, words));
        continue;
      }
      java.util.Arrays.fill(holders, 0L);
      if (!old.sparse) {
        System.arraycopy(old.masks, j * oldWords, holders, 0, oldWords);
      } else if (old.masks[j] < 0) {
        System.arraycopy(old.pool, (int) ~old.masks[j] * oldWords, holders, 0, oldWords);
      } else {
        long cell = old.masks[j];
        for (long tag : new long[] {cell & 0xFFFF_FFFFL, cell >>> 32}) {
          if (tag != 0) {
            holders[(int) ((tag - 1) >>> 6)] |= 1L << (tag - 1);
          }
        }
      }
      t.masks[i] = cellOf(t, holders);
    }
    tombstones = 0;
    rebuilds++;
    table = t;
  }

  /** Writer: the cell of a key held by the slots in {@code holders} (at least one). */
  private static long cellOf(Table t, long[] holders) {
    int n = 0;
    for (long h : holders) {
      n += Long.bitCount(h);
    }
    if (n > 2) {
      int e = t.allocate();
      System.arraycopy(holders, 0, t.pool, e * t.words, t.words);
      return ~(long) e;
    }
    long cell = 0;
    int shift = 0;
    for (int w = 0; w < holders.length; w++) {
      for (long h = holders[w]; h != 0; h &= h - 1) {
        cell |= ((long) (w << 6) + Long.numberOfTrailingZeros(h) + 1) << shift;
        shift = 32;
      }
    }
    return cell;
  }
}
