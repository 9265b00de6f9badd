package io.infera.router.policy;

import io.infera.router.kv.WorkerId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * In-flight and recent load per worker; thread-safe.
 *
 * <p>{@code active_blocks}: the distinct blocks of in-flight requests booked on a worker (two
 * in-flight requests sharing a prefix count it once). {@code recent_blocks}: at every pick all
 * workers' charges decay by ×{@value #DECAY} (values below {@value #FLOOR} become 0) and the picked
 * worker is charged the pick's missed blocks, or 1.0 when the request has no full block — without
 * it, turn-by-turn traffic (in-flight load 0 at every pick) would pin to one worker.
 *
 * <p>With {@link Sharing} attached (router replicas sharing load, see {@link PeerLoadTable}) a pick
 * sees the other replicas' in-flight load added to ours, and every booking and release is
 * announced; other replicas' picks may also be counted here ({@link #remotePick}). Without it the
 * tracker does exactly what it did before: no extra counter, no notification.
 */
public final class LoadTracker {

  /** Per-pick decay of recent charges. */
  public static final double DECAY = 0.97;

  /** Recent charges below this are zero. */
  public static final double FLOOR = 1e-3;

  private final Map<WorkerId, State> states = new ConcurrentHashMap<>();
  private final AtomicLong picks = new AtomicLong();
  private final AtomicLong tickets = new AtomicLong();
  // Orders this tracker's changes for peers; advanced only while sharing is attached.
  private final AtomicLong changes = new AtomicLong();
  private volatile Sharing sharing;

  /** The other router replicas' load, and where this tracker announces its own. */
  public interface Sharing {

    /**
     * The other replicas' in-flight load on {@code worker} ({@code recentBlocks} is ignored: their
     * picks arrive through {@link #remotePick}), {@link WorkerLoad#IDLE} when none. Called on
     * request threads for every candidate of every pick: fast, non-blocking, thread-safe.
     */
    WorkerLoad remote(WorkerId worker);

    /**
     * This replica's load on a worker changed. Called on the booking or releasing thread right
     * after the change, outside the tracker's locks, possibly concurrently and out of {@link
     * Change#seq} order; must not block or throw.
     */
    void changed(Change change);
  }

  /**
   * This replica's totals on one worker after a change, as peers should hold them.
   *
   * @param seq orders this tracker's changes (per worker, a higher seq is newer)
   * @param activeBlocks distinct blocks this replica has in flight on the worker
   * @param inFlight requests this replica has in flight on the worker
   * @param pick whether the change is a pick (a booking), which peers charge {@code charge}
   * @param charge the pick's recent charge (0 when not a pick)
   */
  public record Change(
      WorkerId worker, long seq, long activeBlocks, int inFlight, boolean pick, double charge) {}

  /**
   * This replica's in-flight totals at one moment, for heartbeats.
   *
   * @param seq every change with a seq up to this one is included; a worker absent here had no load
   *     at its last change up to {@code seq}
   * @param workers the workers this replica has load on (changes with {@code pick == false})
   */
  public record OwnLoad(long seq, List<Change> workers) {
    public OwnLoad {
      workers = List.copyOf(workers);
    }
  }

  /**
   * The loads of {@code workers} as the next pick sees them (every earlier charge decayed once more
   * for this pick), with a fresh pick ticket.
   */
  public LoadSnapshot snapshot(List<Worker> workers) {
    long now = picks.get() + 1;
    Sharing sh = sharing;
    Map<WorkerId, WorkerLoad> loads = new HashMap<>(workers.size() * 2);
    for (Worker w : workers) {
      State s = states.get(w.id());
      WorkerLoad l = s == null ? WorkerLoad.IDLE : s.load(now);
      loads.put(w.id(), sh == null ? l : plus(l, sh.remote(w.id())));
    }
    return new LoadSnapshot(loads, tickets.getAndIncrement());
  }

  /** The load of one worker now, as a pick sees it (other replicas' included when shared). */
  public WorkerLoad load(WorkerId id) {
    Sharing sh = sharing;
    WorkerLoad l = localLoad(id);
    return sh == null ? l : plus(l, sh.remote(id));
  }

  /**
   * The load this replica booked on one worker now (its {@code recentBlocks} include other
   * replicas' picks when shared).
   */
  public WorkerLoad localLoad(WorkerId id) {
    State s = states.get(id);
    return s == null ? WorkerLoad.IDLE : s.load(picks.get());
  }

  /**
   * Books a pick: decays every recent charge one step, charges the winner {@code missedBlocks} (or
   * 1.0 when {@code blocks} is empty), and adds {@code blocks} to its in-flight set.
   *
   * @param blocks the request's router hashes
   * @param missedBlocks {@code blocks.length − hits} on the winner
   * @return the booking; close it exactly when the request ends (extra closes are ignored)
   */
  public Booking book(WorkerId winner, long[] blocks, int missedBlocks) {
    State s = states.computeIfAbsent(winner, id -> new State());
    long pick = picks.incrementAndGet();
    double charge = blocks.length == 0 ? 1.0 : Math.max(0, missedBlocks);
    Sharing sh = sharing;
    Change c = s.book(pick, blocks, charge, winner, sh == null ? null : changes);
    if (c != null) {
      sh.changed(c);
    }
    return new Booking(winner, () -> release(winner, s, blocks));
  }

  private void release(WorkerId worker, State s, long[] blocks) {
    Sharing sh = sharing;
    Change c = s.release(blocks, worker, sh == null ? null : changes);
    if (c != null) {
      sh.changed(c);
    }
  }

  /**
   * Counts another replica's pick as one of ours: every recent charge decays one step and {@code
   * worker} is charged {@code charge} (its in-flight part comes through {@link Sharing#remote}), so
   * {@code recent_blocks} follows the fleet's pick stream as one router's would.
   */
  public void remotePick(WorkerId worker, double charge) {
    State s = states.computeIfAbsent(worker, id -> new State());
    s.charge(picks.incrementAndGet(), charge);
  }

  /** Forgets a worker that left discovery (its in-flight requests release into nothing). */
  public void forget(WorkerId id) {
    states.remove(id);
  }

  /**
   * Attaches the other replicas: from now on picks see their load and changes are announced to
   * {@code sharing}. Replaces any earlier one.
   */
  public void share(Sharing sharing) {
    this.sharing = sharing;
  }

  /** Detaches {@code sharing} if it is the one attached; the tracker is local again. */
  public void unshare(Sharing sharing) {
    if (this.sharing == sharing) {
      this.sharing = null;
    }
  }

  /** This replica's in-flight totals per worker with load, for a heartbeat. */
  public OwnLoad ownLoad() {
    long seq = changes.get();
    List<Change> out = new ArrayList<>();
    for (Map.Entry<WorkerId, State> e : states.entrySet()) {
      Change c = e.getValue().totals(e.getKey());
      if (c.activeBlocks() > 0 || c.inFlight() > 0) {
        out.add(c);
      }
    }
    return new OwnLoad(seq, out);
  }

  private static WorkerLoad plus(WorkerLoad local, WorkerLoad remote) {
    if (remote.activeBlocks() == 0 && remote.inFlight() == 0) {
      return local;
    }
    return new WorkerLoad(
        local.activeBlocks() + remote.activeBlocks(),
        local.recentBlocks(),
        local.inFlight() + remote.inFlight());
  }

  /** Mutable per-worker state, guarded by its own monitor. */
  private static final class State {
    private final BlockCounts active = new BlockCounts();
    private double recent;
    private long recentAt;
    private int inFlight;
    private long seq;

    synchronized WorkerLoad load(long now) {
      return new WorkerLoad(active.distinct(), decayed(now), inFlight);
    }

    /** Returns the change to announce when {@code seqs} is given, else null. */
    synchronized Change book(
        long pick, long[] blocks, double charge, WorkerId id, AtomicLong seqs) {
      charge(pick, charge);
      inFlight++;
      for (long b : blocks) {
        active.add(b);
      }
      return seqs == null ? null : change(id, seqs, true, charge);
    }

    synchronized Change release(long[] blocks, WorkerId id, AtomicLong seqs) {
      inFlight--;
      for (long b : blocks) {
        active.remove(b);
      }
      return seqs == null ? null : change(id, seqs, false, 0);
    }

    synchronized void charge(long pick, double charge) {
      // Decay to the pick before ours, then charge ours (which is itself a pick: one more step
      // for everyone else, none for this charge). Concurrent picks may arrive here out of
      // order: a late-arriving earlier pick neither undoes decay nor moves recentAt back.
      recent = decayed(pick) + charge;
      recentAt = Math.max(recentAt, pick);
    }

    synchronized Change totals(WorkerId id) {
      return new Change(id, seq, active.distinct(), inFlight, false, 0);
    }

    // Called with the monitor held, so per worker, seq order is change order.
    private Change change(WorkerId id, AtomicLong seqs, boolean pick, double charge) {
      seq = seqs.incrementAndGet();
      return new Change(id, seq, active.distinct(), inFlight, pick, charge);
    }

    private double decayed(long now) {
      if (recent == 0) {
        return 0;
      }
      if (now <= recentAt) {
        return recent;
      }
      double v = recent * Math.pow(DECAY, now - recentAt);
      return v < FLOOR ? 0 : v;
    }
  }
}
