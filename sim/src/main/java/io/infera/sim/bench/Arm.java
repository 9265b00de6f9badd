package io.infera.sim.bench;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.sim.bench.peer.Peer;
import io.infera.sim.bench.report.Summaries;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One side of the comparison: a production router policy, the oracle (picks by every engine's true
 * device cache at decision time with the kv-aware cost), or a reference arm: kv-aware pinned to a
 * fixed overlap weight ({@code kv-aware@W}, the sweep behind the best static weight in hindsight)
 * or {@code hit-max} (most truly cached blocks, ties by load); or a peer router ({@code
 * peer:sglang-router}: another project's router in its own process, live runs only).
 *
 * @param policy the router policy; null for a peer arm
 * @param overlapWeight the fixed overlap weight of a sweep arm; null for the fleet's setting
 */
public record Arm(String name, PolicyName policy, Double overlapWeight) {

  public static final String ORACLE = "oracle";

  /** The hit-maximizing reference arm (see {@link HitMaxPicker}). */
  public static final String HIT_MAX = Summaries.HIT_MAX;

  /** Names a sweep arm: {@code kv-aware@W}. */
  public static final String SWEEP_PREFIX = Summaries.SWEEP_PREFIX;

  /** Names a peer arm: {@code peer:<name>}. */
  public static final String PEER_PREFIX = "peer:";

  /** The fixed weights of {@code --policies sweep}. */
  public static final List<Double> SWEEP_WEIGHTS = List.of(0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0);

  public Arm {
    if (overlapWeight != null && policy != PolicyName.KV_AWARE) {
      throw new IllegalArgumentException("only kv-aware arms take a fixed overlap weight");
    }
    if ((policy == null) != name.startsWith(PEER_PREFIX)) {
      throw new IllegalArgumentException("a peer arm, and only a peer arm, has no policy");
    }
  }

  /** Another project's router, {@code peer:<name>}. */
  public static Arm peer(Peer p) {
    return new Arm(PEER_PREFIX + p.wireName(), null, null);
  }

  public boolean isPeer() {
    return policy == null;
  }

  /** The peer of a peer arm. */
  public Peer peer() {
    if (!isPeer()) {
      throw new IllegalStateException(name + " is not a peer arm");
    }
    return Peer.parse(name.substring(PEER_PREFIX.length()));
  }

  /** A policy arm at the fleet's overlap weight (or the oracle). */
  public Arm(String name, PolicyName policy) {
    this(name, policy, null);
  }

  /** kv-aware pinned to {@code weight}, named {@code kv-aware@W}. */
  public static Arm fixedWeight(double weight) {
    // PolicyConfig validates the weight and names it.
    new PolicyConfig(PolicyName.KV_AWARE, weight, null, null);
    return new Arm(SWEEP_PREFIX + weightName(weight), PolicyName.KV_AWARE, weight);
  }

  /** The hit-maximizing reference arm. */
  public static Arm hitMax() {
    return new Arm(HIT_MAX, PolicyName.KV_AWARE);
  }

  /** Every sweep arm, in {@link #SWEEP_WEIGHTS} order. */
  public static List<Arm> sweep() {
    List<Arm> out = new ArrayList<>();
    for (double w : SWEEP_WEIGHTS) {
      out.add(fixedWeight(w));
    }
    return out;
  }

  public boolean isHitMax() {
    return HIT_MAX.equals(name);
  }

  /** Whether the arm picks from the engines' true caches instead of through the router. */
  public boolean usesTrueCaches() {
    return isOracle() || isHitMax();
  }

  /**
   * The router policy this arm runs on {@code fleet}: a sweep arm's weight is explicit in the
   * {@link PolicyConfig}, so it stays fixed whatever the router's default weight mode is.
   */
  public PolicyConfig policyConfig(FleetSpec fleet) {
    return overlapWeight == null
        ? fleet.policy(policy)
        : new PolicyConfig(policy, overlapWeight, null, null);
  }

  /** {@code 4.0} → {@code 4}, {@code 0.5} → {@code 0.5}. */
  static String weightName(double w) {
    return w == Math.rint(w) && Math.abs(w) < 1e15
        ? Long.toString((long) w)
        : String.format(Locale.ROOT, "%s", w);
  }

  public static Arm oracle() {
    return new Arm(ORACLE, PolicyName.KV_AWARE);
  }

  public static Arm policy(PolicyName p) {
    return new Arm(p.wireName(), p);
  }

  public boolean isOracle() {
    return ORACLE.equals(name);
  }

  /**
   * Parses {@code kv-aware,round-robin,oracle,hit-max,kv-aware@4,sweep,peer:sglang-router,…};
   * {@code sweep} = every {@link #SWEEP_WEIGHTS} arm; {@code all} = every policy, the oracle,
   * hit-max and the sweep.
   */
  public static List<Arm> parse(String csv) {
    List<Arm> out = new ArrayList<>();
    for (String s : csv.split(",")) {
      String name = s.strip();
      if (name.isEmpty()) {
        continue;
      }
      if (name.equals("all")) {
        for (PolicyName p : PolicyName.values()) {
          out.add(policy(p));
        }
        out.add(oracle());
        out.add(hitMax());
        out.addAll(sweep());
      } else if (name.equals(ORACLE)) {
        out.add(oracle());
      } else if (name.equals(HIT_MAX)) {
        out.add(hitMax());
      } else if (name.equals("sweep")) {
        out.addAll(sweep());
      } else if (name.startsWith(PEER_PREFIX)) {
        out.add(peer(Peer.parse(name.substring(PEER_PREFIX.length()))));
      } else if (name.startsWith(SWEEP_PREFIX)) {
        out.add(fixedWeight(parseWeight(name.substring(SWEEP_PREFIX.length()), name)));
      } else {
        out.add(policy(PolicyName.parse(name)));
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("no policies given");
    }
    List<String> names = new ArrayList<>();
    for (Arm a : out) {
      if (names.contains(a.name())) {
        throw new IllegalArgumentException("arm '" + a.name() + "' given twice");
      }
      names.add(a.name());
    }
    return out;
  }

  private static double parseWeight(String text, String arm) {
    double w;
    try {
      w = Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + arm + "': the weight is not a number");
    }
    if (!Double.isFinite(w) || w < 0) {
      throw new IllegalArgumentException("'" + arm + "': the weight must be a finite number >= 0");
    }
    return w;
  }
}
