package io.infera.router.policy;

import io.infera.router.kv.WorkerId;
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
 */
public final class LoadTracker {

  /** Per-pick decay of recent charges. */
  public static final double DECAY = 0.97;

  /** Recent charges below this are zero. */
  public static final double FLOOR = 1e-3;

  private final Map<WorkerId, State> states = new ConcurrentHashMap<>();
  private final AtomicLong picks = new AtomicLong();
  private final AtomicLong tickets = new AtomicLong();

  /**
   * The loads of {@code workers} as the next pick sees them (every earlier charge decayed once more
   * for this pick), with a fresh pick ticket.
   */
  public LoadSnapshot snapshot(List<Worker> workers) {
    long now = picks.get() + 1;
    Map<WorkerId, WorkerLoad> loads = new HashMap<>(workers.size() * 2);
    for (Worker w : workers) {
      State s = states.get(w.id());
      loads.put(w.id(), s == null ? WorkerLoad.IDLE : s.load(now));
    }
    return new LoadSnapshot(loads, tickets.getAndIncrement());
  }

  /** The load of one worker now. */
  public WorkerLoad load(WorkerId id) {
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
    s.book(pick, blocks, charge);
    return new Booking(winner, () -> s.release(blocks));
  }

  /** Forgets a worker that left discovery (its in-flight requests release into nothing). */
  public void forget(WorkerId id) {
    states.remove(id);
  }

  /** Mutable per-worker state, guarded by its own monitor. */
  private static final class State {
    private final BlockCounts active = new BlockCounts();
    private double recent;
    private long recentAt;
    private int inFlight;

    synchronized WorkerLoad load(long now) {
      return new WorkerLoad(active.distinct(), decayed(now), inFlight);
    }

    synchronized void book(long pick, long[] blocks, double charge) {
      // Decay to the pick before ours, then charge ours (which is itself a pick: one more step
      // for everyone else, none for this charge).
      recent = decayed(pick) + charge;
      recentAt = pick;
      inFlight++;
      for (long b : blocks) {
        active.add(b);
      }
    }

    synchronized void release(long[] blocks) {
      inFlight--;
      for (long b : blocks) {
        active.remove(b);
      }
    }

    private double decayed(long now) {
      if (recent == 0) {
        return 0;
      }
      double v = recent * Math.pow(DECAY, now - recentAt);
      return v < FLOOR ? 0 : v;
    }
  }
}
