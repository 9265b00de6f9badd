package io.infera.router.policy;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The session → {@link SessionBinding} table of one replica (docs/routing.md, "Session affinity"):
 * bounded by entries (least recently used go first) and by idle time (a binding unused for the TTL
 * is gone). Keys are 64-bit hashes of the session key; the key text is never kept. Bindings made
 * here are announced to a {@link Sharing} (other replicas) at once; bindings still in use are
 * re-announced at most once per refresh interval, in batches the sharing side drains. Thread-safe
 * (one monitor; every operation is O(1) but draining).
 */
public final class SessionBindings {

  /** Where new bindings and refreshes go: the other router replicas, when there are any. */
  public interface Sharing {
    /** A binding this replica made or replaced now; must not block. */
    void announce(long session, SessionBinding binding);
  }

  /** What a binding from another replica did here. */
  public enum Merge {
    /** Taken: it was new here, or supersedes the local one. */
    APPLIED,
    /** The same binding as the local one: its idle time starts again. */
    REFRESHED,
    /** The local binding supersedes it: ignored. */
    STALE
  }

  /** Counters and size, for metrics and the status. */
  public record Stats(int size, long evictedCapacity, long evictedTtl, long refreshesDropped) {}

  /** Most refreshes waiting to be drained; more are dropped (counted) until drained. */
  public static final int MAX_PENDING_REFRESHES = 8192;

  private static final class Slot {
    SessionBinding binding;
    long usedMs;
    long sharedMs;

    Slot(SessionBinding binding, long nowMs) {
      this.binding = binding;
      this.usedMs = nowMs;
      this.sharedMs = nowMs;
    }
  }

  /** A binding and its session, for batched refreshes. */
  public record Entry(long session, SessionBinding binding) {}

  private final int maxSessions;
  private final long ttlMs;
  private final long refreshMs;
  private final LongSupplier clockMs;
  private final LinkedHashMap<Long, Slot> table;
  private final LinkedHashMap<Long, Boolean> pendingRefresh = new LinkedHashMap<>();
  private final LongAdder evictedCapacity = new LongAdder();
  private final LongAdder evictedTtl = new LongAdder();
  private final LongAdder refreshesDropped = new LongAdder();
  private volatile Sharing sharing;

  /**
   * @param maxSessions most bindings kept (≥ 1)
   * @param ttlMs idle time after which a binding is gone (&gt; 0)
   * @param clockMs milliseconds, monotonic enough for idle times
   */
  public SessionBindings(int maxSessions, long ttlMs, LongSupplier clockMs) {
    if (maxSessions < 1 || ttlMs < 1) {
      throw new IllegalArgumentException("maxSessions and ttlMs must be >= 1");
    }
    this.maxSessions = maxSessions;
    this.ttlMs = ttlMs;
    // Peers' copies idle out after the TTL too: refresh well within it, at most every 10 s.
    this.refreshMs = Math.max(1, Math.min(ttlMs / 3, 10_000));
    this.clockMs = clockMs;
    this.table = new LinkedHashMap<>(); // in order of last use (touch moves to the end)
  }

  /** Sends new and replaced bindings to {@code s} from now on (null: to nobody). */
  public void share(Sharing s) {
    this.sharing = s;
  }

  /**
   * The live binding of {@code session}, or null. A live one counts as used now (its idle time
   * starts again, and it is queued for a refresh to the peers when one is due); an idle one is
   * dropped.
   */
  public SessionBinding use(long session) {
    long now = clockMs.getAsLong();
    synchronized (this) {
      Slot s = live(session, now);
      if (s == null) {
        return null;
      }
      touch(session, s, now);
      if (sharing != null && now - s.sharedMs >= refreshMs) {
        s.sharedMs = now;
        if (pendingRefresh.size() < MAX_PENDING_REFRESHES) {
          pendingRefresh.put(session, Boolean.TRUE);
        } else {
          refreshesDropped.increment();
        }
      }
      return s.binding;
    }
  }

  /** The live binding of {@code session}, or null; changes nothing (for explain). */
  public synchronized SessionBinding peek(long session) {
    Slot s = table.get(session);
    if (s == null || clockMs.getAsLong() - s.usedMs >= ttlMs) {
      return null;
    }
    return s.binding;
  }

  /** Stores a binding made here and announces it to the peers. */
  public void put(long session, SessionBinding binding) {
    long now = clockMs.getAsLong();
    synchronized (this) {
      store(session, binding, now);
    }
    Sharing s = sharing;
    if (s != null) {
      s.announce(session, binding);
    }
  }

  /** Applies a binding another replica made or refreshed (never announced again). */
  public Merge merge(long session, SessionBinding remote) {
    long now = clockMs.getAsLong();
    synchronized (this) {
      Slot s = live(session, now);
      if (s == null || s.binding.supersededBy(remote)) {
        store(session, remote, now);
        return Merge.APPLIED;
      }
      if (s.binding.equals(remote)) {
        touch(session, s, now);
        s.sharedMs = now; // the peers know it: no refresh of ours is due
        return Merge.REFRESHED;
      }
      return Merge.STALE;
    }
  }

  /** Up to {@code max} bindings in use whose refresh is due, oldest request first. */
  public List<Entry> drainRefreshes(int max) {
    long now = clockMs.getAsLong();
    List<Entry> out = new ArrayList<>();
    synchronized (this) {
      Iterator<Long> it = pendingRefresh.keySet().iterator();
      while (it.hasNext() && out.size() < max) {
        long session = it.next();
        it.remove();
        Slot s = live(session, now);
        if (s != null) {
          out.add(new Entry(session, s.binding));
        }
      }
    }
    return out;
  }

  public synchronized Stats stats() {
    return new Stats(table.size(), evictedCapacity.sum(), evictedTtl.sum(), refreshesDropped.sum());
  }

  /** Bindings kept now (idle ones not yet swept included). */
  public synchronized int size() {
    return table.size();
  }

  public int maxSessions() {
    return maxSessions;
  }

  public long ttlMs() {
    return ttlMs;
  }

  // ------------------------------------------------------------------ under the monitor

  private Slot live(long session, long now) {
    Slot s = table.get(session);
    if (s != null && now - s.usedMs >= ttlMs) {
      table.remove(session);
      pendingRefresh.remove(session);
      evictedTtl.increment();
      return null;
    }
    return s;
  }

  private void store(long session, SessionBinding binding, long now) {
    Slot s = table.get(session);
    if (s != null) {
      s.binding = binding;
      s.sharedMs = now;
      touch(session, s, now);
    } else {
      table.put(session, new Slot(binding, now));
    }
    sweep(now);
  }

  /** Marks a binding used now: it moves to the most recently used end. */
  private void touch(long session, Slot s, long now) {
    s.usedMs = now;
    table.remove(session);
    table.put(session, s);
  }

  /** Drops idle bindings from the least recently used end, then any over the cap. */
  private void sweep(long now) {
    Iterator<Map.Entry<Long, Slot>> it = table.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Long, Slot> e = it.next();
      boolean idle = now - e.getValue().usedMs >= ttlMs;
      if (!idle && table.size() <= maxSessions) {
        return;
      }
      it.remove();
      pendingRefresh.remove(e.getKey());
      (idle ? evictedTtl : evictedCapacity).increment();
    }
  }
}
