package io.infera.router.policy.tuner;

import io.infera.router.config.TunerConfig;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The overlap weight of one pool and role, tuned online by paired probes on a log-spaced grid
 * (factor 2 between points, within the configured bounds): requests are routed in epochs of {@code
 * epochRequests} at the grid point above the current weight and the one below, in the order up,
 * down, down, up (then down, up, up, down), so a trend in the traffic during a round cancels out. A
 * round's verdict is the relative difference of the two probes' time to first token per requested
 * block. Hysteresis: the verdicts since the last move (the last {@value #MAX_EVIDENCE_ROUNDS} at
 * most) are evidence, and the weight moves one grid step toward the better probe only when there
 * are at least {@value #CONFIRM_ROUNDS} and their mean is both at least 5 % and {@value
 * #SIGNIFICANCE} standard errors from zero (noise, or a workload where the weight does not matter,
 * leaves it where it is; alternating verdicts never flap it; verdicts that agree only in sign but
 * scatter widely wait for more rounds). A move discards the evidence and the rounds in progress, so
 * a shift in the workload is followed within a few rounds. Thread-safe: every method is short and
 * synchronized.
 */
public final class WeightTuner {

  /**
   * Grid spacing in log2 units: neighbouring weights differ by a factor 2 (measured against √2 on
   * the Mooncake trace and the built-in workloads: the wider probes separate sooner,
   * docs/routing.md).
   */
  static final double STEP_LOG2 = 1.0;

  /** Fewest rounds of evidence before the weight may move. */
  static final int CONFIRM_ROUNDS = 2;

  /**
   * Most rounds of evidence kept (the latest): old rounds leave, so a drift in the traffic since
   * the last move is not averaged away.
   */
  static final int MAX_EVIDENCE_ROUNDS = 8;

  /** Smallest mean relative difference between the probes that moves the weight. */
  static final double MIN_EFFECT = 0.05;

  /**
   * How many standard errors the evidence's mean must be from zero to move the weight. Round
   * verdicts on real traffic scatter by tens of percent (one slow epoch dominates a round), and two
   * rounds that merely agree in sign moved the weight back and forth on a conversation trace where
   * 4 to 32 are within a few percent of each other (docs/routing.md, "Self-tuning overlap weight").
   */
  static final double SIGNIFICANCE = 2.0;

  /** Rounds still waiting for reports beyond which the oldest is given up. */
  static final int MAX_PENDING_ROUNDS = 4;

  /** What a finished round did to the weight. */
  public enum Verdict {
    UP,
    DOWN,
    HOLD,
    /** Adopted the replicas' shared estimate. */
    MERGE,
    /** Too few reports to compare (failures, non-text requests). */
    DISCARD
  }

  /** The counts behind {@link #status}. */
  public record Status(
      double weight,
      double upProbe,
      double downProbe,
      long samples,
      long up,
      long down,
      long hold,
      long merge,
      long discard,
      double lastDifference) {}

  private static final int UP = 0;
  private static final int DOWN = 1;

  private final double base;
  private final int minIdx;
  private final int maxIdx;
  private final int epoch;
  private final ArrayDeque<Round> pending = new ArrayDeque<>();
  private final ArrayDeque<Double> evidence = new ArrayDeque<>();
  private int center;
  private Round current;
  private long rounds;
  private long samples;
  private final long[] verdicts = new long[Verdict.values().length];
  private double lastDifference = Double.NaN;

  public WeightTuner(TunerConfig config) {
    // The grid starts at the lower bound, so every weight it holds is within the bounds.
    this.base = config.minWeight();
    this.minIdx = 0;
    this.maxIdx = (int) Math.floor(log2(config.maxWeight() / base) / STEP_LOG2 + 1e-9);
    this.epoch = config.epochRequests();
    this.center = clamp((int) Math.round(log2(config.initialWeight() / base) / STEP_LOG2));
    this.current = newRound();
  }

  /** The weight the next pick in this pool uses (the current probe). */
  public synchronized double weight() {
    return current == null ? weightAt(center) : weightAt(current.armIndex());
  }

  /** The weight the tuner settled on (the probes are one grid step either side of it). */
  public synchronized double centerWeight() {
    return weightAt(center);
  }

  /** Reports received in all. */
  public synchronized long samples() {
    return samples;
  }

  /**
   * Registers a booked pick in this pool, routed at {@link #weight()}: its first token (or its end
   * without one) must be reported once through the returned probe.
   *
   * @param requestBlocks the request's full blocks (the normaliser of its time to first token)
   */
  public synchronized Probe booked(int requestBlocks) {
    if (current == null) {
      return null; // the bounds leave one weight: nothing to tune
    }
    Round r = current;
    int arm = r.arm();
    Probe p = new Probe(this, r, arm, weightAt(arm == UP ? r.up : r.down), requestBlocks);
    r.issued++;
    r.outstanding++;
    if (r.issued == 4 * epoch) {
      pending.addLast(r);
      if (pending.size() > MAX_PENDING_ROUNDS) {
        pending.removeFirst().dead = true;
        verdicts[Verdict.DISCARD.ordinal()]++;
      }
      current = newRound();
    }
    return p;
  }

  /**
   * Moves to {@code weight} (snapped to the grid and the bounds) when it is at least one grid step
   * from the current weight; returns whether it moved.
   */
  public synchronized boolean adopt(double weight) {
    if (!(weight > 0) || Double.isInfinite(weight)) {
      return false;
    }
    double idx = log2(weight / base) / STEP_LOG2;
    if (Math.abs(idx - center) < 1.0) {
      return false;
    }
    int target = clamp((int) Math.round(idx));
    if (target == center) {
      return false;
    }
    moveTo(target, Verdict.MERGE);
    return true;
  }

  public synchronized Status status() {
    Round r = current;
    return new Status(
        weightAt(center),
        r == null ? weightAt(center) : weightAt(r.up),
        r == null ? weightAt(center) : weightAt(r.down),
        samples,
        verdicts[Verdict.UP.ordinal()],
        verdicts[Verdict.DOWN.ordinal()],
        verdicts[Verdict.HOLD.ordinal()],
        verdicts[Verdict.MERGE.ordinal()],
        verdicts[Verdict.DISCARD.ordinal()],
        lastDifference);
  }

  /** How often each verdict was reached. */
  public synchronized long verdicts(Verdict v) {
    return verdicts[v.ordinal()];
  }

  synchronized void report(Probe p, double ttftMs, boolean counted) {
    Round r = (Round) p.round;
    r.outstanding--;
    if (counted) {
      r.ttft[p.arm] += ttftMs;
      r.blocks[p.arm] += p.requestBlocks + 1.0;
      r.n[p.arm]++;
      if (!r.dead) {
        samples++;
      }
    }
    evaluateFinished();
  }

  private void evaluateFinished() {
    Iterator<Round> it = pending.iterator();
    while (it.hasNext()) {
      Round r = it.next();
      if (r.outstanding > 0) {
        return; // rounds are judged in order
      }
      it.remove();
      Verdict v = judge(r);
      verdicts[v.ordinal()]++;
      if (v == Verdict.UP || v == Verdict.DOWN) {
        return; // moveTo discarded the rest
      }
    }
  }

  private Verdict judge(Round r) {
    if (r.n[UP] < epoch / 2 || r.n[DOWN] < epoch / 2) {
      return Verdict.DISCARD;
    }
    double up = r.ttft[UP] / r.blocks[UP];
    double down = r.ttft[DOWN] / r.blocks[DOWN];
    double d = up + down <= 0 ? 0 : (up - down) / ((up + down) / 2);
    lastDifference = d;
    evidence.addLast(d);
    while (evidence.size() > MAX_EVIDENCE_ROUNDS) {
      evidence.removeFirst();
    }
    if (evidence.size() < CONFIRM_ROUNDS) {
      return Verdict.HOLD;
    }
    int n = evidence.size();
    double sum = 0;
    for (double e : evidence) {
      sum += e;
    }
    double mean = sum / n;
    double squares = 0;
    for (double e : evidence) {
      squares += (e - mean) * (e - mean);
    }
    double standardError = Math.sqrt(squares / (n - 1) / n);
    boolean moves = Math.abs(mean) >= MIN_EFFECT && Math.abs(mean) >= SIGNIFICANCE * standardError;
    int target = !moves ? center : mean < 0 ? clamp(center + 1) : clamp(center - 1);
    if (target == center) {
      return Verdict.HOLD;
    }
    Verdict v = target > center ? Verdict.UP : Verdict.DOWN;
    moveTo(target, null);
    return v;
  }

  private void moveTo(int target, Verdict counted) {
    center = target;
    evidence.clear();
    for (Round r : pending) {
      r.dead = true;
    }
    pending.clear();
    if (current != null) {
      current.dead = true;
    }
    current = newRound();
    if (counted != null) {
      verdicts[counted.ordinal()]++;
    }
  }

  private Round newRound() {
    int up = clamp(center + 1);
    int down = clamp(center - 1);
    if (up == down) {
      return null;
    }
    return new Round(up, down, (rounds++ & 1) == 0);
  }

  private int clamp(int idx) {
    return Math.max(minIdx, Math.min(maxIdx, idx));
  }

  private double weightAt(int idx) {
    return base * Math.pow(2, idx * STEP_LOG2);
  }

  private static double log2(double x) {
    return Math.log(x) / Math.log(2);
  }

  /** One round: four epochs, two per probe. */
  private final class Round {
    final int up;
    final int down;
    final boolean upFirst;
    final double[] ttft = new double[2];
    final double[] blocks = new double[2];
    final int[] n = new int[2];
    int issued;
    int outstanding;
    boolean dead;

    Round(int up, int down, boolean upFirst) {
      this.up = up;
      this.down = down;
      this.upFirst = upFirst;
    }

    /** UP or DOWN for the next pick: epochs A, B, B, A. */
    int arm() {
      int e = issued / epoch;
      boolean a = e == 0 || e == 3;
      return a == upFirst ? UP : DOWN;
    }

    int armIndex() {
      return arm() == UP ? up : down;
    }
  }
}
