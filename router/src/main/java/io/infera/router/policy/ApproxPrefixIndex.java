package io.infera.router.policy;

import io.infera.router.kv.WorkerId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * What the {@code approx-prefix} policy believes each worker caches, learned from the router's own
 * decisions (for engines that publish no KV events): the blocks of every request routed to a worker
 * are assumed cached there for {@code ttlMs}, at most {@code capacity} blocks per worker (least
 * recently used evicted first). Thread-safe.
 */
public final class ApproxPrefixIndex {

  private final long ttlMs;
  private final int capacity;
  private final LongSupplier clockMs;
  private final Map<WorkerId, Lru> workers = new ConcurrentHashMap<>();

  public ApproxPrefixIndex(long ttlMs, int capacity, LongSupplier clockMs) {
    this.ttlMs = ttlMs;
    this.capacity = capacity;
    this.clockMs = clockMs;
  }

  /** Records that {@code blocks} were just routed to {@code worker}. */
  public void record(WorkerId worker, long[] blocks) {
    if (blocks.length == 0) {
      return;
    }
    Lru lru = workers.computeIfAbsent(worker, w -> new Lru(capacity));
    long now = clockMs.getAsLong();
    synchronized (lru) {
      for (long b : blocks) {
        lru.put(b, now);
      }
    }
  }

  /** Longest leading run of {@code blocks} each worker is believed to hold. */
  public Overlap match(long[] blocks, List<Worker> candidates) {
    Map<WorkerId, Integer> hits = new java.util.HashMap<>();
    long now = clockMs.getAsLong();
    for (Worker w : candidates) {
      Lru lru = workers.get(w.id());
      if (lru == null) {
        continue;
      }
      int n = 0;
      synchronized (lru) {
        while (n < blocks.length) {
          Long at = lru.get(blocks[n]);
          if (at == null || now - at > ttlMs) {
            break;
          }
          n++;
        }
      }
      if (n > 0) {
        hits.put(w.id(), n);
      }
    }
    return new Overlap(blocks.length, hits);
  }

  public void forget(WorkerId worker) {
    workers.remove(worker);
  }

  /** Blocks currently remembered for a worker (expired ones included until evicted). */
  public int size(WorkerId worker) {
    Lru lru = workers.get(worker);
    if (lru == null) {
      return 0;
    }
    synchronized (lru) {
      return lru.size();
    }
  }

  private static final class Lru extends LinkedHashMap<Long, Long> {
    private final int capacity;

    Lru(int capacity) {
      super(16, 0.75f, true);
      this.capacity = capacity;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, Long> eldest) {
      return size() > capacity;
    }
  }
}
