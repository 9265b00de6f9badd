package io.infera.router.policy;

import io.infera.router.kv.WorkerId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Other router replicas' booked load, as their load-sharing messages report it (docs/routing.md,
 * load model): per replica its in-flight totals per worker, the newest per-worker seq winning (so
 * lost or reordered reports repair themselves), summed per worker for picks to read lock-free. A
 * replica not heard from within the expiry, or that left, stops counting. Plain Java: the clock is
 * injected and the wire belongs to the caller ({@code io.infera.router.events.nats.SharedLoad}).
 *
 * <p>Bounds, since a report is outside input: at most {@link #MAX_REPLICAS} replicas (others are
 * ignored until some expire), each with at most {@code maxWorkersPerReplica} workers, and once
 * {@link #workers} was called only workers discovery knows (others are ignored, and forgotten when
 * they leave). A report's totals are clamped to {@link #MAX_ACTIVE_BLOCKS} and {@link
 * #MAX_IN_FLIGHT} per replica and worker, and a worker's sum over all replicas to {@link
 * #MAX_SUM_ACTIVE_BLOCKS} and {@link #MAX_SUM_IN_FLIGHT}: sums never overflow, and forged totals
 * can add at most that much load to a worker. Clamps and ignored workers are counted.
 *
 * <p>Threads: reports and expiry under one lock (the caller's receiving and ticking threads);
 * {@link #remote} from any thread without locking.
 */
public final class PeerLoadTable {

  /** Replicas tracked at most (more are ignored until some expire). */
  public static final int MAX_REPLICAS = 1024;

  /** Largest active-blocks total one replica may report for one worker (larger is clamped). */
  public static final long MAX_ACTIVE_BLOCKS = 1L << 22;

  /** Largest in-flight total one replica may report for one worker (larger is clamped). */
  public static final int MAX_IN_FLIGHT = 1 << 16;

  /** Largest active-blocks sum over all replicas a pick sees for one worker. */
  public static final long MAX_SUM_ACTIVE_BLOCKS = 1L << 24;

  /** Largest in-flight sum over all replicas a pick sees for one worker. */
  public static final int MAX_SUM_IN_FLIGHT = 1 << 20;

  /** What a report did. */
  public enum Outcome {
    /** Applied to a replica already counted. */
    APPLIED,
    /** Applied to a replica heard for the first time: bring it up to date. */
    JOINED,
    /** Not applied: the table is full or closed. */
    IGNORED
  }

  /** One other replica's totals per worker, and when it was last heard. */
  private static final class Peer {
    final Map<WorkerId, Slot> workers = new HashMap<>();
    long heardAt;
  }

  private record Slot(long seq, long activeBlocks, int inFlight) {}

  /** A worker's exact sums over all replicas (may exceed the read clamp, never overflows). */
  private record Sum(long activeBlocks, long inFlight, WorkerLoad clamped) {}

  /**
   * A replica dropped for silence.
   *
   * @param silentNanos how long it had not been heard
   */
  public record Expired(long replica, long silentNanos) {}

  private final long expiryNanos;
  private final int maxWorkersPerReplica;
  private final LongSupplier nanoClock;
  private final Object lock = new Object();
  private final Map<Long, Peer> peers = new HashMap<>();
  // Per worker, the sum of all peers' totals; written under lock, read lock-free by picks.
  private final Map<WorkerId, Sum> sums = new ConcurrentHashMap<>();
  private final LongAdder expired = new LongAdder();
  private final LongAdder clamped = new LongAdder();
  private final LongAdder unknownWorkers = new LongAdder();
  private final LongAdder ignoredReplicas = new LongAdder();
  // Workers discovery knows; null until the first workers() call (then every worker is taken).
  private Set<WorkerId> known;
  private boolean closed;

  /**
   * @param expiry how long a replica counts after its last report
   * @param maxWorkersPerReplica workers kept per replica (more are ignored)
   * @param nanoClock {@link System#nanoTime()} or a test clock
   */
  public PeerLoadTable(Duration expiry, int maxWorkersPerReplica, LongSupplier nanoClock) {
    if (expiry.isNegative() || expiry.isZero()) {
      throw new IllegalArgumentException("expiry must be > 0");
    }
    this.expiryNanos = expiry.toNanos();
    this.maxWorkersPerReplica = maxWorkersPerReplica;
    this.nanoClock = nanoClock;
  }

  /** The other replicas' in-flight load on {@code worker} (no recent part), idle when none. */
  public WorkerLoad remote(WorkerId worker) {
    Sum l = sums.get(worker);
    return l == null ? WorkerLoad.IDLE : l.clamped();
  }

  /**
   * The workers discovery knows now: reports on others are ignored from now on, and what replicas
   * reported on workers no longer known is forgotten.
   */
  public void workers(Set<WorkerId> current) {
    synchronized (lock) {
      known = Set.copyOf(current);
      for (Peer p : peers.values()) {
        for (Iterator<Map.Entry<WorkerId, Slot>> it = p.workers.entrySet().iterator();
            it.hasNext(); ) {
          Map.Entry<WorkerId, Slot> w = it.next();
          if (!known.contains(w.getKey())) {
            addToSum(w.getKey(), w.getValue(), -1);
            it.remove();
          }
        }
      }
    }
  }

  /** Report totals clamped to {@link #MAX_ACTIVE_BLOCKS} or {@link #MAX_IN_FLIGHT} so far. */
  public long clamped() {
    return clamped.sum();
  }

  /** Report entries on workers discovery does not know, ignored so far. */
  public long unknownWorkers() {
    return unknownWorkers.sum();
  }

  /** Reports of a new replica ignored because {@link #MAX_REPLICAS} were counted. */
  public long ignoredReplicas() {
    return ignoredReplicas.sum();
  }

  /** Workers with a non-zero sum now (tests: bounded by the known workers). */
  public int workersWithLoad() {
    return sums.size();
  }

  /** Replicas counted now. */
  public int replicas() {
    synchronized (lock) {
      return peers.size();
    }
  }

  /** Replicas dropped for silence so far. */
  public long expired() {
    return expired.sum();
  }

  /**
   * A replica's changes on some workers (picks are the caller's business: only totals count here).
   */
  public Outcome update(long replica, List<LoadTracker.Change> changes) {
    synchronized (lock) {
      Outcome o = heard(replica);
      if (o != Outcome.IGNORED) {
        Peer p = peers.get(replica);
        for (LoadTracker.Change c : changes) {
          apply(p, c);
        }
      }
      return o;
    }
  }

  /**
   * A replica's full totals as of its change {@code seq}: a worker it leaves out has no load,
   * unless a newer change of it already said more.
   */
  public Outcome heartbeat(long replica, long seq, List<LoadTracker.Change> totals) {
    synchronized (lock) {
      Outcome o = heard(replica);
      if (o == Outcome.IGNORED) {
        return o;
      }
      Peer p = peers.get(replica);
      Set<WorkerId> listed = new HashSet<>();
      for (LoadTracker.Change c : totals) {
        apply(p, c);
        listed.add(c.worker());
      }
      for (Iterator<Map.Entry<WorkerId, Slot>> it = p.workers.entrySet().iterator();
          it.hasNext(); ) {
        Map.Entry<WorkerId, Slot> w = it.next();
        if (!listed.contains(w.getKey()) && w.getValue().seq() <= seq) {
          addToSum(w.getKey(), w.getValue(), -1);
          it.remove();
        }
      }
      return o;
    }
  }

  /** A replica left: it stops counting now. Returns whether it was counted. */
  public boolean leave(long replica) {
    synchronized (lock) {
      Peer p = peers.remove(replica);
      if (p == null) {
        return false;
      }
      p.workers.forEach((w, slot) -> addToSum(w, slot, -1));
      return true;
    }
  }

  /** Drops replicas not heard from within the expiry; returns them. */
  public List<Expired> expire() {
    long now = nanoClock.getAsLong();
    List<Expired> out = new ArrayList<>();
    synchronized (lock) {
      for (Iterator<Map.Entry<Long, Peer>> it = peers.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<Long, Peer> e = it.next();
        if (now - e.getValue().heardAt > expiryNanos) {
          e.getValue().workers.forEach((w, slot) -> addToSum(w, slot, -1));
          it.remove();
          expired.increment();
          out.add(new Expired(e.getKey(), now - e.getValue().heardAt));
        }
      }
    }
    return out;
  }

  /** Forgets every replica and ignores further reports. */
  public void close() {
    synchronized (lock) {
      closed = true;
      peers.clear();
      sums.clear();
    }
  }

  // Under lock: the replica is heard now (created when new and there is room).
  private Outcome heard(long replica) {
    if (closed) {
      return Outcome.IGNORED;
    }
    Peer p = peers.get(replica);
    Outcome o = Outcome.APPLIED;
    if (p == null) {
      if (peers.size() >= MAX_REPLICAS) {
        ignoredReplicas.increment();
        return Outcome.IGNORED;
      }
      p = new Peer();
      peers.put(replica, p);
      o = Outcome.JOINED;
    }
    p.heardAt = nanoClock.getAsLong();
    return o;
  }

  private void apply(Peer p, LoadTracker.Change c) {
    if (known != null && !known.contains(c.worker())) {
      unknownWorkers.increment();
      return;
    }
    Slot old = p.workers.get(c.worker());
    if (old != null && old.seq() > c.seq()) {
      return; // a newer change already arrived
    }
    if (old == null && p.workers.size() >= maxWorkersPerReplica) {
      return;
    }
    long active = Math.min(Math.max(0, c.activeBlocks()), MAX_ACTIVE_BLOCKS);
    int inFlight = Math.min(Math.max(0, c.inFlight()), MAX_IN_FLIGHT);
    if (active != c.activeBlocks() || inFlight != c.inFlight()) {
      clamped.increment();
    }
    Slot now = new Slot(c.seq(), active, inFlight);
    if (old != null) {
      addToSum(c.worker(), old, -1);
    }
    addToSum(c.worker(), now, +1);
    p.workers.put(c.worker(), now);
  }

  // Under lock: the only writer of sums.
  private void addToSum(WorkerId worker, Slot slot, int sign) {
    if (slot.activeBlocks() == 0 && slot.inFlight() == 0) {
      return;
    }
    // Exact in long: at most MAX_REPLICAS × (2^22, 2^16) per worker, far from overflowing.
    Sum cur = sums.get(worker);
    long active = (cur == null ? 0 : cur.activeBlocks()) + sign * slot.activeBlocks();
    long inFlight = (cur == null ? 0 : cur.inFlight()) + sign * slot.inFlight();
    if (active == 0 && inFlight == 0) {
      sums.remove(worker);
    } else {
      WorkerLoad read =
          new WorkerLoad(
              Math.min(active, MAX_SUM_ACTIVE_BLOCKS),
              0,
              (int) Math.min(inFlight, MAX_SUM_IN_FLIGHT));
      sums.put(worker, new Sum(active, inFlight, read));
    }
  }
}
