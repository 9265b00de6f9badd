package io.infera.sim.workload;

import java.util.Objects;

/**
 * When sessions start: a Poisson process (exponential gaps, mean {@code 1000 / ratePerSec} ms) or a
 * fixed rate (equal gaps). The first session starts at 0 ms. {@code ratePerSec = +∞} starts every
 * session at once (a burst: the benchmark is then limited by the fleet, not the arrival rate).
 *
 * @param process the gap distribution
 * @param ratePerSec mean sessions started per second, &gt; 0 (may be {@code +∞})
 */
public record Arrivals(Process process, double ratePerSec) {

  /** The gap distribution. */
  public enum Process {
    /** Exponential gaps: independent arrivals, bursts and lulls like real users. */
    POISSON,
    /** Equal gaps: a steady load, least variance between seeds. */
    FIXED
  }

  public Arrivals {
    Objects.requireNonNull(process, "process");
    if (!(ratePerSec > 0)) {
      throw new IllegalArgumentException("ratePerSec must be > 0, got " + ratePerSec);
    }
  }

  public static Arrivals poisson(double ratePerSec) {
    return new Arrivals(Process.POISSON, ratePerSec);
  }

  public static Arrivals fixedRate(double ratePerSec) {
    return new Arrivals(Process.FIXED, ratePerSec);
  }

  /** Every session at 0 ms. */
  public static Arrivals burst() {
    return new Arrivals(Process.FIXED, Double.POSITIVE_INFINITY);
  }

  /** {@code sessions} starts spread over about {@code windowMs} (rate = sessions / window). */
  public static Arrivals spread(Process process, int sessions, double windowMs) {
    if (!(windowMs > 0) || Double.isInfinite(windowMs)) {
      throw new IllegalArgumentException("windowMs must be finite and > 0, got " + windowMs);
    }
    return new Arrivals(process, Math.max(1, sessions) * 1000.0 / windowMs);
  }

  /** Start times of {@code n} sessions in ms, non-decreasing, the first at 0. */
  public double[] startTimes(int n, long seed) {
    return startTimes(n, new Rng(seed));
  }

  double[] startTimes(int n, Rng rng) {
    double[] out = new double[n];
    if (Double.isInfinite(ratePerSec)) {
      return out;
    }
    double meanGapMs = 1000.0 / ratePerSec;
    for (int i = 1; i < n; i++) {
      out[i] = process == Process.POISSON ? out[i - 1] + rng.exponential(meanGapMs) : i * meanGapMs;
    }
    return out;
  }
}
