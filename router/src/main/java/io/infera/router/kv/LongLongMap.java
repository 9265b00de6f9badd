package io.infera.router.kv;

/**
 * An open-addressing {@code long → long} hash map for one thread (the index writer).
 *
 * <p>Linear probing over a table of any size (multiply-shift range reduction after a Fibonacci mix,
 * since engine hashes may be small sequential integers), backward-shift deletion (no tombstones),
 * key 0 kept outside the table. Grows by 1.5× at a load of 3/4 and shrinks (to a load of 3/8) when
 * removals take it below 1/4, so it holds 16 bytes per slot at a load between 1/4 and 3/4: its
 * memory follows what it holds now, not the most it ever held (a view that filled up and emptied
 * must give the heap back, or caps on what views hold would not bound the heap).
 */
public final class LongLongMap {

  private static final long PHI = 0x9E3779B97F4A7C15L;
  private static final int MIN_CAPACITY = 8;
  // Below this capacity a table never shrinks: too small to matter, and it would thrash.
  private static final int SHRINK_FLOOR = 64;

  private long[] keys;
  private long[] values;
  private int capacity;
  private int size;
  private int maxFill;
  private boolean hasZero;
  private long zeroValue;

  public LongLongMap() {
    this(MIN_CAPACITY);
  }

  public LongLongMap(int expected) {
    allocate(capacityFor(expected));
  }

  public int size() {
    return size + (hasZero ? 1 : 0);
  }

  public boolean isEmpty() {
    return size() == 0;
  }

  /** The slot holding {@code key}, or -1; pass it to {@link #valueAt} or {@link #removeAt}. */
  public int find(long key) {
    if (key == 0) {
      return hasZero ? keys.length : -1;
    }
    long[] k = keys;
    int i = index(key);
    while (true) {
      long cur = k[i];
      if (cur == key) {
        return i;
      }
      if (cur == 0) {
        return -1;
      }
      i = next(i);
    }
  }

  public long valueAt(int slot) {
    return slot == keys.length ? zeroValue : values[slot];
  }

  public void setValueAt(int slot, long value) {
    if (slot == keys.length) {
      zeroValue = value;
    } else {
      values[slot] = value;
    }
  }

  public boolean containsKey(long key) {
    return find(key) >= 0;
  }

  /** The value for key, or {@code missing}. */
  public long get(long key, long missing) {
    int slot = find(key);
    return slot < 0 ? missing : valueAt(slot);
  }

  /**
   * Reads the key's home slot and returns what is there: called ahead of a batch of operations so
   * that their cache misses overlap instead of queueing one after another.
   */
  public long touch(long key) {
    return keys[index(key)];
  }

  /** Puts key → value only when key is absent; returns true when it did. One probe. */
  public boolean putIfAbsent(long key, long value) {
    return insert(key, value, false);
  }

  /** Puts key → value; returns true when the key was new. */
  public boolean put(long key, long value) {
    return insert(key, value, true);
  }

  private boolean insert(long key, long value, boolean overwrite) {
    if (key == 0) {
      boolean added = !hasZero;
      if (added || overwrite) {
        hasZero = true;
        zeroValue = value;
      }
      return added;
    }
    int i = index(key);
    while (true) {
      long cur = keys[i];
      if (cur == key) {
        if (overwrite) {
          values[i] = value;
        }
        return false;
      }
      if (cur == 0) {
        keys[i] = key;
        values[i] = value;
        if (++size > maxFill) {
          rehash(grown(capacity));
        }
        return true;
      }
      i = next(i);
    }
  }

  /**
   * Adds {@code delta} to key's value (absent = 0) and returns the new value; a key whose value
   * reaches 0 is removed.
   */
  public long addTo(long key, long delta) {
    if (key != 0 && delta > 0) {
      return addPositive(key, delta);
    }
    int slot = find(key);
    if (slot < 0) {
      if (delta != 0) {
        put(key, delta);
      }
      return delta;
    }
    long v = valueAt(slot) + delta;
    if (v == 0) {
      removeAt(slot);
    } else {
      setValueAt(slot, v);
    }
    return v;
  }

  /** {@link #addTo} of a positive delta to a non-zero key: one probe for find and insert. */
  private long addPositive(long key, long delta) {
    long[] k = keys;
    int i = index(key);
    while (true) {
      long cur = k[i];
      if (cur == key) {
        long v = values[i] + delta;
        if (v == 0) {
          removeAt(i);
        } else {
          values[i] = v;
        }
        return v;
      }
      if (cur == 0) {
        k[i] = key;
        values[i] = delta;
        if (++size > maxFill) {
          rehash(grown(capacity));
        }
        return delta;
      }
      i = next(i);
    }
  }

  /** Removes key; returns true when it was present. */
  public boolean remove(long key) {
    int slot = find(key);
    if (slot < 0) {
      return false;
    }
    removeAt(slot);
    return true;
  }

  /** Removes the entry at {@code slot}; slots found before this call are invalid after it. */
  public void removeAt(int slot) {
    removeAtKeepingCapacity(slot);
    trim();
  }

  /**
   * Removes the entry at {@code slot} without shrinking the table: a caller removing many entries
   * at once calls {@link #trim} after the last, so the table shrinks once instead of at every
   * quarter on the way down.
   */
  public void removeAtKeepingCapacity(int slot) {
    if (slot == keys.length) {
      hasZero = false;
      zeroValue = 0;
      return;
    }
    // Backward-shift deletion keeps every probe chain unbroken without tombstones.
    long[] k = keys;
    long[] v = values;
    int hole = slot;
    int i = next(hole);
    while (k[i] != 0) {
      int home = index(k[i]);
      // Move k[i] into the hole when its home is not cyclically within (hole, i].
      if (distance(home, i) >= distance(hole, i)) {
        k[hole] = k[i];
        v[hole] = v[i];
        hole = i;
      }
      i = next(i);
    }
    k[hole] = 0;
    v[hole] = 0;
    size--;
  }

  /** Shrinks the table (to a load of 3/8) when it is below a load of 1/4 and above the floor. */
  public void trim() {
    if (size < (capacity >> 2) && capacity > SHRINK_FLOOR) {
      rehash(Math.max(SHRINK_FLOOR, capacityFor(2 * size)));
    }
  }

  /**
   * Makes room for {@code expected} entries in all with at most one rehash: a caller about to add
   * many keys calls it first, so the table does not grow 1.5× at a time on the way up.
   */
  public void ensureCapacity(int expected) {
    if (expected > maxFill) {
      rehash(capacityFor(expected));
    }
  }

  /** Slots in the table now (tests: memory follows the size). */
  int capacity() {
    return capacity;
  }

  public void clear() {
    allocate(MIN_CAPACITY);
    size = 0;
    hasZero = false;
    zeroValue = 0;
  }

  /** Visits every entry; the map must not change during the walk. */
  public void forEach(Entry visitor) {
    if (hasZero) {
      visitor.accept(0, zeroValue);
    }
    long[] k = keys;
    long[] v = values;
    for (int i = 0; i < k.length; i++) {
      if (k[i] != 0) {
        visitor.accept(k[i], v[i]);
      }
    }
  }

  /** Heap bytes held by the two arrays (for stats and the memory benchmark). */
  public long tableBytes() {
    return 2L * (16 + 8L * keys.length);
  }

  /** Callback for {@link #forEach}. */
  @FunctionalInterface
  public interface Entry {
    void accept(long key, long value);
  }

  private int index(long key) {
    return (int) ((((key * PHI) >>> 32) * capacity) >>> 32);
  }

  private int next(int i) {
    return i + 1 == capacity ? 0 : i + 1;
  }

  private int distance(int from, int to) {
    return to >= from ? to - from : to + capacity - from;
  }

  /** The next capacity after {@code capacity}: 1.5× (shared with {@link BlockTable}). */
  static int grown(int capacity) {
    long c = (long) capacity + (capacity >> 1);
    if (c > (1 << 30)) {
      throw new IllegalStateException("hash table too large: " + capacity);
    }
    return (int) c;
  }

  private static int capacityFor(int expected) {
    return (int) Math.max(MIN_CAPACITY, (long) Math.ceil(expected / 0.75) + 1);
  }

  private void allocate(int capacity) {
    this.capacity = capacity;
    keys = new long[capacity];
    values = new long[capacity];
    maxFill = (int) (capacity * 0.75);
  }

  private void rehash(int capacity) {
    long[] oldK = keys;
    long[] oldV = values;
    allocate(capacity);
    for (int j = 0; j < oldK.length; j++) {
      long key = oldK[j];
      if (key != 0) {
        int i = index(key);
        while (keys[i] != 0) {
          i = next(i);
        }
        keys[i] = key;
        values[i] = oldV[j];
      }
    }
  }
}
