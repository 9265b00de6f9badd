package io.infera.router.policy.tuner;

import io.infera.router.config.OverlapWeightMode;
import io.infera.router.config.PolicyConfig;
import io.infera.router.config.Role;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The overlap weight of every pool and role: fixed from the policy config, or one {@link
 * WeightTuner} per pool and role, created on first use. Reading a weight has no side effect; {@link
 * #booked} registers a pick with its tuner. Peers' estimates (shared by other router replicas) pull
 * a tuner that has drifted a grid step or more from their sample-weighted mean. Thread-safe.
 */
public final class OverlapTuning {

  /** A pool and role's weight estimate and the evidence behind it, as shared with peers. */
  public record Estimate(String pool, Role role, double weight, long samples) {}

  /** One pool and role, for the metrics and {@code /v1/admin/status}. */
  public record PoolStatus(String pool, Role role, OverlapWeightMode mode, WeightTuner.Status s) {}

  /** How long a peer's estimate counts without a refresh. */
  public static final long PEER_TTL_MS = 30_000;

  /** Most pool-role tuners (a hostile discovery source cannot grow this without bound). */
  public static final int MAX_TUNERS = 1024;

  /** The most a replica's samples weigh in a merge (one replica cannot outvote all the rest). */
  public static final long MAX_SAMPLES = 100_000;

  /** Most peer replicas remembered per pool and role (forged replica ids cannot grow it). */
  public static final int MAX_PEERS = 64;

  private record Key(String pool, Role role) {}

  private record PeerEntry(double weight, long samples, long atMs) {}

  private final PolicyConfig config;
  private final boolean tunes;
  private final Map<Key, WeightTuner> tuners = new ConcurrentHashMap<>();
  private final Map<Key, Map<String, PeerEntry>> peers = new HashMap<>();
  private final Map<Key, Boolean> fixedSeen = new ConcurrentHashMap<>();
  private volatile PoolListener listener;

  /** Told once of every pool and role the router routes to (for per-pool meters). */
  public interface PoolListener {
    /**
     * @param tuner null when the weight is fixed
     */
    void added(String pool, Role role, WeightTuner tuner);
  }

  public OverlapTuning(PolicyConfig config) {
    this.config = config;
    this.tunes = config.tunes();
  }

  public boolean tunes() {
    return tunes;
  }

  /** Sets the listener and tells it of the pools already known. */
  public void listen(PoolListener l) {
    this.listener = l;
    tuners.forEach((k, t) -> l.added(k.pool(), k.role(), t));
    fixedSeen.keySet().forEach(k -> l.added(k.pool(), k.role(), null));
  }

  /** The weight a fixed-mode pool of {@code role} uses. */
  public double fixedWeight(Role role) {
    return config.weightFor(role);
  }

  /** The weight a candidate of {@code pool} and {@code role} is scored with now. */
  public double weight(String pool, Role role) {
    if (!tunes) {
      return config.weightFor(role);
    }
    WeightTuner t = tuner(pool, role);
    return t == null ? config.tuner().initialWeight() : t.weight();
  }

  /**
   * Registers a booked pick whose winner is in {@code pool} with {@code role}; null when the weight
   * is fixed (nothing to report).
   */
  public Probe booked(String pool, Role role, int requestBlocks) {
    if (!tunes) {
      Key k = new Key(pool == null ? "" : pool, role);
      if (fixedSeen.size() < MAX_TUNERS
          && !fixedSeen.containsKey(k)
          && fixedSeen.putIfAbsent(k, Boolean.TRUE) == null) {
        PoolListener l = listener;
        if (l != null) {
          l.added(k.pool(), role, null);
        }
      }
      return null;
    }
    WeightTuner t = tuner(pool, role);
    return t == null ? null : t.booked(requestBlocks);
  }

  /** This replica's estimates, to share with its peers (empty when the weight is fixed). */
  public List<Estimate> estimates() {
    List<Estimate> out = new ArrayList<>();
    for (Map.Entry<Key, WeightTuner> e : tuners.entrySet()) {
      WeightTuner t = e.getValue();
      out.add(new Estimate(e.getKey().pool(), e.getKey().role(), t.centerWeight(), t.samples()));
    }
    out.sort(Comparator.comparing(Estimate::pool).thenComparing(Estimate::role));
    return out;
  }

  /**
   * Merges a peer replica's estimates (already validated): each tuner this replica has for the same
   * pool and role moves to the sample-weighted geometric mean of its own and its fresh peers'
   * weights when that is a grid step or more away. Pools this replica has not routed to are
   * ignored.
   */
  public synchronized void mergePeer(String replica, List<Estimate> theirs, long nowMs) {
    if (!tunes) {
      return;
    }
    for (Estimate e : theirs) {
      Key k = new Key(e.pool(), e.role());
      WeightTuner t = tuners.get(k);
      if (t == null) {
        continue;
      }
      Map<String, PeerEntry> byReplica = peers.computeIfAbsent(k, x -> new HashMap<>());
      byReplica.values().removeIf(p -> nowMs - p.atMs() > PEER_TTL_MS);
      if (!(e.weight() > 0) || Double.isInfinite(e.weight()) || e.samples() < 0) {
        continue;
      }
      if (byReplica.size() >= MAX_PEERS && !byReplica.containsKey(replica)) {
        continue;
      }
      byReplica.put(replica, new PeerEntry(e.weight(), e.samples(), nowMs));
      double own = evidence(t.samples());
      double sum = own * Math.log(t.centerWeight());
      double total = own;
      for (PeerEntry p : byReplica.values()) {
        double w = evidence(p.samples());
        sum += w * Math.log(p.weight());
        total += w;
      }
      t.adopt(Math.exp(sum / total));
    }
  }

  /** Samples as merge weight: at least 1, at most {@link #MAX_SAMPLES}. */
  private static double evidence(long samples) {
    return Math.max(1, Math.min(MAX_SAMPLES, samples));
  }

  /** Every pool and role the router has routed to, sorted. */
  public List<PoolStatus> status() {
    List<PoolStatus> out = new ArrayList<>();
    OverlapWeightMode mode = tunes ? OverlapWeightMode.AUTO : OverlapWeightMode.FIXED;
    for (Map.Entry<Key, WeightTuner> e : tuners.entrySet()) {
      out.add(new PoolStatus(e.getKey().pool(), e.getKey().role(), mode, e.getValue().status()));
    }
    for (Key k : fixedSeen.keySet()) {
      double w = config.weightFor(k.role());
      out.add(
          new PoolStatus(
              k.pool(),
              k.role(),
              mode,
              new WeightTuner.Status(w, w, w, 0, 0, 0, 0, 0, 0, Double.NaN)));
    }
    out.sort(
        Comparator.comparing((PoolStatus p) -> p.pool()).thenComparing(p -> p.role().ordinal()));
    return out;
  }

  /** The tuner of one pool and role, or null when there are already {@link #MAX_TUNERS}. */
  WeightTuner tuner(String pool, Role role) {
    Key k = new Key(pool == null ? "" : pool, role);
    WeightTuner t = tuners.get(k);
    if (t != null) {
      return t;
    }
    if (tuners.size() >= MAX_TUNERS) {
      return null;
    }
    boolean[] created = new boolean[1];
    t =
        tuners.computeIfAbsent(
            k,
            x -> {
              created[0] = true;
              return new WeightTuner(config.tuner());
            });
    PoolListener l = listener;
    if (created[0] && l != null) {
      l.added(k.pool(), role, t);
    }
    return t;
  }
}
