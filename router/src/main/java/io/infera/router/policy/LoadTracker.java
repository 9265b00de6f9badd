package io.infera.router.policy;

import io.infera.router.config.LoadModel;
import io.infera.router.kv.WorkerId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * In-flight load and booked prefill work per worker, in blocks and time; thread-safe.
 *
 * <p>{@code active_blocks}: the distinct blocks of in-flight requests booked on a worker (two
 * in-flight requests sharing a prefix count it once). {@code recent_blocks}: the prefill work
 * booked on the worker and not yet done. Every pick books a charge of its missed blocks (1.0 for a
 * request without a full block) at the end of the worker's queue. A charge leaves
 *
 * <ul>
 *   <li>when its request's first token arrives ({@link Booking#firstToken}); the charges booked
 *       before it on that worker leave too, since engines admit requests first come, first served;
 *   <li>when its request ends, fails or is released;
 *   <li>and in any case with time: the worker's queue drains from its head at the worker's
 *       estimated prefill rate, so a lost signal never leaves a phantom charge.
 * </ul>
 *
 * <p>The rate starts at {@link LoadModel#prefillBlocksPerSecond} and, with {@link
 * LoadModel#learnRate}, is learned per worker at every first token: the work the request waited for
 * (the charges ahead of it at booking plus its own) over its time to first token, as a ratio of
 * exponentially weighted sums (each sample counts {@value #SAMPLE_DECAY} of the one before; the
 * start rate counts as a sample of {@value #PRIOR_SECONDS} s), bounded to [{@code start} / {@value
 * #RATE_FLOOR_DIVISOR}, {@code start} × {@value #RATE_CEILING_FACTOR}].
 *
 * <p>With {@link Sharing} attached (router replicas sharing load, see {@link PeerLoadTable}) a pick
 * sees the other replicas' in-flight load added to ours, and every booking and release is
 * announced; other replicas' picks may also be counted here ({@link #remotePick}), as charges that
 * drain with time. Without it the tracker sends no notification.
 */
public final class LoadTracker {

  /** Each rate sample counts this much of the one before (about ten samples of memory). */
  public static final double SAMPLE_DECAY = 0.9;

  /** The weight of the starting rate, as seconds of observed prefill. */
  public static final double PRIOR_SECONDS = 0.2;

  /** The learned rate never falls below the starting rate divided by this. */
  public static final double RATE_FLOOR_DIVISOR = 64;

  /** The learned rate never rises above the starting rate times this. */
  public static final double RATE_CEILING_FACTOR = 16;

  private final Map<WorkerId, State> states = new ConcurrentHashMap<>();
  private final AtomicLong tickets = new AtomicLong();
  // Orders this tracker's changes for peers; advanced only while sharing is attached.
  private final AtomicLong changes = new AtomicLong();
  private final LoadModel model;
  private final LongSupplier nanoTime;
  private volatile Sharing sharing;

  /** A tracker with the default load model on the wall clock. */
  public LoadTracker() {
    this(LoadModel.DEFAULTS, System::nanoTime);
  }

  /**
   * @param nanoTime the clock charges drain on, in ns (monotonic; the simulator passes its virtual
   *     time)
   */
  public LoadTracker(LoadModel model, LongSupplier nanoTime) {
    this.model = model;
    this.nanoTime = nanoTime;
  }

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
   * @param charge the pick's prefill charge (0 when not a pick)
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

  /** The loads of {@code workers} as a pick sees them now, with a fresh pick ticket. */
  public LoadSnapshot snapshot(List<Worker> workers) {
    long now = nanoTime.getAsLong();
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
   * replicas' picks when those are counted).
   */
  public WorkerLoad localLoad(WorkerId id) {
    State s = states.get(id);
    return s == null ? WorkerLoad.IDLE : s.load(nanoTime.getAsLong());
  }

  /**
   * The prefill rate the tracker assumes for {@code id} now, blocks per second (the starting rate
   * until it has learned one).
   */
  public double prefillRate(WorkerId id) {
    State s = states.get(id);
    return s == null ? model.prefillBlocksPerSecond() : s.rate();
  }

  /**
   * Books a pick: charges the winner {@code missedBlocks} (or 1.0 when {@code blocks} is empty) at
   * the end of its prefill queue and adds {@code blocks} to its in-flight set.
   *
   * @param blocks the request's router hashes
   * @param missedBlocks {@code blocks.length − hits} on the winner
   * @return the booking; call {@link Booking#firstToken} when the first token arrives and close it
   *     exactly when the request ends (extra calls are ignored)
   */
  public Booking book(WorkerId winner, long[] blocks, int missedBlocks) {
    State s = states.computeIfAbsent(winner, id -> new State(model));
    double charge = blocks.length == 0 ? 1.0 : Math.max(0, missedBlocks);
    Sharing sh = sharing;
    State.Booked b =
        s.book(nanoTime.getAsLong(), blocks, charge, winner, sh == null ? null : changes);
    if (b.change() != null) {
      sh.changed(b.change());
    }
    Charge c = b.charge();
    return new Booking(
        winner, () -> s.firstToken(c, nanoTime.getAsLong()), () -> release(winner, s, c, blocks));
  }

  private void release(WorkerId worker, State s, Charge c, long[] blocks) {
    Sharing sh = sharing;
    Change ch = s.release(c, blocks, worker, sh == null ? null : changes);
    if (ch != null) {
      sh.changed(ch);
    }
  }

  /**
   * Counts another replica's pick here: {@code worker} is charged {@code charge} at the end of its
   * queue (its in-flight part comes through {@link Sharing#remote}). No first token will be heard
   * of: the charge drains with time, or leaves with a later local request's first token.
   */
  public void remotePick(WorkerId worker, double charge) {
    State s = states.computeIfAbsent(worker, id -> new State(model));
    s.remoteCharge(nanoTime.getAsLong(), charge);
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

  /**
   * One booked prefill charge. {@code left} and {@code queued} are guarded by the worker's monitor;
   * the rest is fixed at booking.
   */
  private static final class Charge {
    final long ticket;
    final long bookedAt;
    // The work the request waits for: the queue ahead of it at booking plus its own charge.
    final double work;
    double left;
    boolean queued = true;

    Charge(long ticket, long bookedAt, double ahead, double charge) {
      this.ticket = ticket;
      this.bookedAt = bookedAt;
      this.work = ahead + charge;
      this.left = charge;
    }
  }

  /** Mutable per-worker state, guarded by its own monitor. */
  private static final class State {
    record Booked(Charge charge, Change change) {}

    private final BlockCounts active = new BlockCounts();
    private final ArrayDeque<Charge> queue = new ArrayDeque<>();
    private final LoadModel model;
    private final double minRate;
    private final double maxRate;
    private double pending;
    private long drainedAt;
    private boolean drainedOnce;
    private long nextTicket;
    // Exponentially weighted sums of observed work (blocks) and time (s); rate = work / time.
    private double sampleWork;
    private double sampleSeconds;
    private double rate;
    private int inFlight;
    private long seq;

    State(LoadModel model) {
      this.model = model;
      this.rate = model.prefillBlocksPerSecond();
      this.minRate = rate / RATE_FLOOR_DIVISOR;
      this.maxRate = rate * RATE_CEILING_FACTOR;
      this.sampleSeconds = PRIOR_SECONDS;
      this.sampleWork = rate * PRIOR_SECONDS;
    }

    synchronized WorkerLoad load(long now) {
      drain(now);
      return new WorkerLoad(active.distinct(), pending, inFlight);
    }

    synchronized double rate() {
      return rate;
    }

    /** Books a charge; the change to announce is set when {@code seqs} is given. */
    synchronized Booked book(long now, long[] blocks, double charge, WorkerId id, AtomicLong seqs) {
      Charge c = enqueue(now, charge);
      inFlight++;
      active.addAll(blocks);
      return new Booked(c, seqs == null ? null : change(id, seqs, true, charge));
    }

    synchronized void remoteCharge(long now, double charge) {
      enqueue(now, charge);
    }

    /**
     * The request of {@code c} produced its first token: it and every charge queued before it leave
     * (first come, first served), and the wait teaches the rate.
     */
    synchronized void firstToken(Charge c, long now) {
      drain(now);
      if (model.learnRate() && now > c.bookedAt && c.work > 0) {
        double seconds = (now - c.bookedAt) / 1e9;
        sampleWork = sampleWork * SAMPLE_DECAY + c.work;
        sampleSeconds = sampleSeconds * SAMPLE_DECAY + seconds;
        rate = Math.max(minRate, Math.min(maxRate, sampleWork / sampleSeconds));
      }
      while (!queue.isEmpty() && queue.peekFirst().ticket <= c.ticket) {
        dequeue(queue.pollFirst());
      }
      settle();
    }

    synchronized Change release(Charge c, long[] blocks, WorkerId id, AtomicLong seqs) {
      if (c.queued) {
        for (Iterator<Charge> it = queue.iterator(); it.hasNext(); ) {
          if (it.next() == c) {
            it.remove();
            dequeue(c);
            break;
          }
        }
        settle();
      }
      inFlight--;
      active.removeAll(blocks);
      return seqs == null ? null : change(id, seqs, false, 0);
    }

    synchronized Change totals(WorkerId id) {
      return new Change(id, seq, active.distinct(), inFlight, false, 0);
    }

    private Charge enqueue(long now, double charge) {
      drain(now);
      Charge c = new Charge(nextTicket++, now, pending, charge);
      if (charge > 0) {
        queue.addLast(c);
        pending += charge;
      } else {
        c.queued = false;
      }
      return c;
    }

    private void dequeue(Charge c) {
      pending -= c.left;
      c.left = 0;
      c.queued = false;
    }

    /** An empty queue holds exactly nothing (no rounding left over). */
    private void settle() {
      if (queue.isEmpty() || pending < 0) {
        pending = queue.isEmpty() ? 0 : Math.max(0, pending);
      }
    }

    /**
     * Works the queue off from its head at the current rate since the last drain. An idle worker
     * banks no credit, and a clock reading older than the last drain changes nothing.
     */
    private void drain(long now) {
      if (!drainedOnce || queue.isEmpty()) {
        drainedAt = now;
        drainedOnce = true;
        return;
      }
      if (now <= drainedAt) {
        return;
      }
      double budget = rate * ((now - drainedAt) / 1e9);
      drainedAt = now;
      while (budget > 0 && !queue.isEmpty()) {
        Charge h = queue.peekFirst();
        if (h.left <= budget) {
          budget -= h.left;
          dequeue(queue.pollFirst());
        } else {
          h.left -= budget;
          pending -= budget;
          budget = 0;
        }
      }
      settle();
    }

    // Called with the monitor held, so per worker, seq order is change order.
    private Change change(WorkerId id, AtomicLong seqs, boolean pick, double charge) {
      seq = seqs.incrementAndGet();
      return new Change(id, seq, active.distinct(), inFlight, pick, charge);
    }
  }
}
