package io.infera.router.policy;

import io.infera.router.kv.WorkerId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per worker, the image keys ({@link io.infera.router.kv.ImageKey}) of the multimodal requests this
 * replica booked on it lately: a bounded LRU of at most {@code entriesPerWorker} keys, the least
 * recently booked first out. Picks read it ({@link #held}); bookings write it ({@link #booked}),
 * after the pure selection. Engine-agnostic: it never touches engine KV hashes. Thread-safe (one
 * lock per worker); memory is bounded by {@code entriesPerWorker} × workers.
 */
public final class ImageAffinity {

  /** Default keys remembered per worker ({@code policy.multimodal.affinityEntries}). */
  public static final int DEFAULT_ENTRIES = 1024;

  private final int entriesPerWorker;
  private final Map<WorkerId, Lru> workers = new ConcurrentHashMap<>();

  /**
   * @param entriesPerWorker keys kept per worker, {@code >= 1}
   */
  public ImageAffinity(int entriesPerWorker) {
    if (entriesPerWorker < 1) {
      throw new IllegalArgumentException("entriesPerWorker must be >= 1, got " + entriesPerWorker);
    }
    this.entriesPerWorker = entriesPerWorker;
  }

  public int entriesPerWorker() {
    return entriesPerWorker;
  }

  /**
   * How many of {@code keys} each candidate holds; a read that changes no recency.
   *
   * @return per candidate (absent: 0)
   */
  public Map<WorkerId, Integer> held(List<Worker> candidates, long[] keys) {
    if (keys.length == 0) {
      return Map.of();
    }
    Map<WorkerId, Integer> out = new LinkedHashMap<>();
    for (Worker w : candidates) {
      Lru lru = workers.get(w.id());
      if (lru != null) {
        int n = lru.count(keys);
        if (n > 0) {
          out.put(w.id(), n);
        }
      }
    }
    return out;
  }

  /** A multimodal pick was booked on {@code worker}: its keys become the most recent there. */
  public void booked(WorkerId worker, long[] keys) {
    if (keys.length == 0) {
      return;
    }
    workers.computeIfAbsent(worker, id -> new Lru(entriesPerWorker)).add(keys);
  }

  /** Keys held for {@code worker} now. */
  public int size(WorkerId worker) {
    Lru lru = workers.get(worker);
    return lru == null ? 0 : lru.size();
  }

  /** Forgets a worker that left discovery. */
  public void forget(WorkerId worker) {
    workers.remove(worker);
  }

  /** One worker's keys in booking order (access order: a re-booked key moves to the end). */
  private static final class Lru {
    private final LinkedHashMap<Long, Boolean> keys;

    Lru(int max) {
      this.keys =
          new LinkedHashMap<>(Math.min(max, 64) * 2, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
              return size() > max;
            }
          };
    }

    synchronized int count(long[] wanted) {
      int n = 0;
      for (long k : wanted) {
        // containsKey does not touch the access order: a read never refreshes a key
        if (keys.containsKey(k)) {
          n++;
        }
      }
      return n;
    }

    synchronized void add(long[] added) {
      for (long k : added) {
        keys.put(k, Boolean.TRUE);
      }
    }

    synchronized int size() {
      return keys.size();
    }
  }
}
