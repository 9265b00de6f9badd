package io.infera.router.accuracy;

/**
 * The last {@code capacity} comparisons of one scope (the router, or one pool), each dropped once
 * older than {@code maxAgeNanos}. Not thread-safe: {@link IndexAccuracy} guards it.
 */
final class AccuracyWindow {

  /**
   * A window's totals.
   *
   * @param known comparisons whose answer reported cached tokens
   * @param unknown answers that did not say
   * @param predicted blocks the router predicted cached, summed
   * @param reported blocks the engines reported cached, summed
   * @param predictedHit blocks both agree on ({@code min(predicted, reported)} per request)
   * @param absError {@code |predicted − reported|}, summed
   */
  record Stats(
      int known, int unknown, long predicted, long reported, long predictedHit, long absError) {

    /** Predicted-hit blocks that were hits, or null with nothing predicted. */
    Double precision() {
      return predicted == 0 ? null : predictedHit / (double) predicted;
    }

    /** Reported-hit blocks the router predicted, or null with nothing reported. */
    Double recall() {
      return reported == 0 ? null : predictedHit / (double) reported;
    }

    /** Mean {@code |predicted − reported|} per known comparison, or null. */
    Double meanAbsError() {
      return known == 0 ? null : absError / (double) known;
    }
  }

  private final int capacity;
  private final long maxAgeNanos;
  // -1 in predicted marks an answer that did not report
  private final int[] predicted;
  private final int[] reported;
  private final long[] at;
  private int next;
  private int size;

  AccuracyWindow(int capacity, long maxAgeNanos) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1");
    }
    this.capacity = capacity;
    this.maxAgeNanos = maxAgeNanos;
    this.predicted = new int[capacity];
    this.reported = new int[capacity];
    this.at = new long[capacity];
  }

  /** One answer that reported {@code reportedBlocks}, where the router predicted {@code p}. */
  void known(int p, int reportedBlocks, long nowNanos) {
    put(p, reportedBlocks, nowNanos);
  }

  /** One answer that did not report. */
  void unknown(long nowNanos) {
    put(-1, 0, nowNanos);
  }

  private void put(int p, int r, long now) {
    predicted[next] = p;
    reported[next] = r;
    at[next] = now;
    next = (next + 1) % capacity;
    size = Math.min(capacity, size + 1);
  }

  Stats stats(long nowNanos) {
    int known = 0;
    int unknown = 0;
    long p = 0;
    long r = 0;
    long hit = 0;
    long err = 0;
    for (int k = 0; k < size; k++) {
      int i = Math.floorMod(next - 1 - k, capacity);
      if (nowNanos - at[i] > maxAgeNanos) {
        break; // newest first: the rest are older still
      }
      if (predicted[i] < 0) {
        unknown++;
        continue;
      }
      known++;
      p += predicted[i];
      r += reported[i];
      hit += Math.min(predicted[i], reported[i]);
      err += Math.abs(predicted[i] - reported[i]);
    }
    return new Stats(known, unknown, p, r, hit, err);
  }
}
