package io.infera.sim.bench;

import java.util.function.LongSupplier;

/**
 * The live driver's clock: simulated ms since {@link #start}, i.e. wall time × speedup, the unit
 * every live result is reported in (the engines' clocks run {@code speedup} times faster).
 */
final class SimClock {

  private final double speedup;
  private final LongSupplier nanoTime;
  private volatile long t0;

  SimClock(double speedup) {
    this(speedup, System::nanoTime);
  }

  SimClock(double speedup, LongSupplier nanoTime) {
    if (!(speedup > 0)) {
      throw new IllegalArgumentException("speedup must be > 0");
    }
    this.speedup = speedup;
    this.nanoTime = nanoTime;
  }

  /** Sets time 0 to now. */
  void start() {
    t0 = nanoTime.getAsLong();
  }

  /** Simulated ms since {@link #start}. Any thread. */
  double nowMs() {
    return (nanoTime.getAsLong() - t0) / 1e6 * speedup;
  }

  /** How many wall-clock µs a simulated span of {@code simMs} takes (for scheduling). */
  long wallMicros(double simMs) {
    return (long) (simMs / speedup * 1000);
  }
}
