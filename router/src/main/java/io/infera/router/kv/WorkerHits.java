package io.infera.router.kv;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * An immutable map from worker to its cached leading blocks, built for the pick: one open-addressed
 * table of {@link WorkerId} keys and primitive counts, so a match result becomes per-worker hits
 * and a candidate's hits are read without boxing, copying or a general-purpose map. Absent workers
 * have 0 hits ({@link #hitsOf}); as a {@link Map} it holds exactly the workers it was built with.
 */
public final class WorkerHits extends AbstractMap<WorkerId, Integer> {

  private static final WorkerHits EMPTY = new WorkerHits(new WorkerId[1], new int[1], 0);

  // Power-of-two length, at most half full; null marks a free slot.
  private final WorkerId[] keys;
  private final int[] values;
  private final int size;

  private WorkerHits(WorkerId[] keys, int[] values, int size) {
    this.keys = keys;
    this.values = values;
    this.size = size;
  }

  /** {@code hits} itself when it is a {@code WorkerHits}, else an immutable copy of it. */
  public static WorkerHits copyOf(Map<WorkerId, Integer> hits) {
    if (hits instanceof WorkerHits w) {
      return w;
    }
    Builder b = new Builder(hits.size());
    for (Map.Entry<WorkerId, Integer> e : hits.entrySet()) {
      WorkerId id = e.getKey();
      Integer v = e.getValue();
      if (id == null || v == null) {
        throw new NullPointerException("worker hits must not hold null keys or values");
      }
      b.add(id, v);
    }
    return b.build();
  }

  /** {@code worker}'s hits, 0 when absent. */
  public int hitsOf(WorkerId worker) {
    int i = slot(keys, worker);
    return keys[i] == null ? 0 : values[i];
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public boolean containsKey(Object key) {
    return key instanceof WorkerId w && keys[slot(keys, w)] != null;
  }

  @Override
  public Integer get(Object key) {
    if (!(key instanceof WorkerId w)) {
      return null;
    }
    int i = slot(keys, w);
    return keys[i] == null ? null : values[i];
  }

  @Override
  public Integer getOrDefault(Object key, Integer fallback) {
    Integer v = get(key);
    return v == null ? fallback : v;
  }

  @Override
  public Set<Map.Entry<WorkerId, Integer>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public int size() {
        return size;
      }

      @Override
      public Iterator<Map.Entry<WorkerId, Integer>> iterator() {
        return new Iterator<>() {
          private int next = advance(0);

          private int advance(int from) {
            int i = from;
            while (i < keys.length && keys[i] == null) {
              i++;
            }
            return i;
          }

          @Override
          public boolean hasNext() {
            return next < keys.length;
          }

          @Override
          public Map.Entry<WorkerId, Integer> next() {
            if (next >= keys.length) {
              throw new NoSuchElementException();
            }
            Map.Entry<WorkerId, Integer> e = Map.entry(keys[next], values[next]);
            next = advance(next + 1);
            return e;
          }
        };
      }
    };
  }

  /** The slot of {@code key}, or the free slot where it would go. */
  private static int slot(WorkerId[] keys, WorkerId key) {
    int mask = keys.length - 1;
    int h = key.hashCode();
    int i = (h ^ (h >>> 16)) & mask;
    while (keys[i] != null && !keys[i].equals(key)) {
      i = (i + 1) & mask;
    }
    return i;
  }

  /** Adds pairs one by one; a worker added twice keeps its largest count. */
  static final class Builder {
    private final WorkerId[] keys;
    private final int[] values;
    private int size;

    Builder(int expected) {
      int cap = Integer.highestOneBit(Math.max(1, expected) * 2 - 1) << 1;
      keys = new WorkerId[Math.max(2, cap)];
      values = new int[keys.length];
    }

    void add(WorkerId id, int count) {
      if (count < 0) {
        throw new IllegalArgumentException("hits must be >= 0, got " + count + " for " + id);
      }
      int i = slot(keys, id);
      if (keys[i] == null) {
        keys[i] = id;
        values[i] = count;
        size++;
      } else if (count > values[i]) {
        values[i] = count;
      }
    }

    WorkerHits build() {
      return size == 0 ? EMPTY : new WorkerHits(keys, values, size);
    }
  }
}
