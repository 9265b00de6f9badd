package io.infera.sim.workload;

/**
 * SplitMix64: a tiny generator whose output is fixed by this file alone, so a seeded workload stays
 * byte-identical across JDK versions (java.util's generators make no such promise for every
 * method). Not thread-safe; one instance per stream.
 */
final class Rng {

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private long state;

  Rng(long seed) {
    this.state = seed;
  }

  /**
   * An independent stream for {@code key} under {@code seed}: equal (seed, key) pairs give equal
   * streams, so a trace's hash id always yields the same block of tokens.
   */
  static Rng keyed(long seed, long key) {
    return new Rng(mix(seed ^ mix(key + GOLDEN)));
  }

  /**
   * Stream {@code index} of kind {@code stream} under {@code seed}: generators draw each piece of
   * content from its own stream so that a piece never changes when other knobs (arrival rate,
   * number of sessions) do.
   */
  static Rng stream(long seed, int stream, long index) {
    return keyed(seed, ((long) stream << 40) + index);
  }

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  long nextLong() {
    state += GOLDEN;
    return mix(state);
  }

  /** Uniform in [0, bound); bound must be positive. */
  int nextInt(int bound) {
    // Multiply-shift on 31 random bits: the bias is below bound / 2^31, negligible here.
    return (int) (((nextLong() >>> 33) * bound) >>> 31);
  }

  /** Uniform in [0, 1). */
  double nextDouble() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }

  /** Exponentially distributed with the given mean. */
  double exponential(double mean) {
    return -mean * Math.log1p(-nextDouble());
  }

  /** Fisher–Yates shuffle in place. */
  void shuffle(int[] a) {
    for (int i = a.length - 1; i > 0; i--) {
      int j = nextInt(i + 1);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
}
