package io.infera.router.policy.tuner;

/**
 * One booked pick's pending report to its pool's {@link WeightTuner}: the first token's delay, or
 * that none will come. Only the first report counts; later ones are ignored. Confined to the
 * request's context (the tuner itself is thread-safe).
 */
public final class Probe {

  private final WeightTuner tuner;
  final Object round;
  final int arm;
  final double weight;
  final int requestBlocks;
  private boolean done;

  Probe(WeightTuner tuner, Object round, int arm, double weight, int requestBlocks) {
    this.tuner = tuner;
    this.round = round;
    this.arm = arm;
    this.weight = weight;
    this.requestBlocks = requestBlocks;
  }

  /** The weight the pick was routed at. */
  public double weight() {
    return weight;
  }

  /**
   * The request's first token arrived {@code ttftMs} after it was sent to the worker.
   *
   * @param textOnly false for a request the tuner must not learn from (multimodal: its overlap term
   *     is image affinity, not the text overlap the weight scales); it then only ends the probe
   */
  public void firstToken(double ttftMs, boolean textOnly) {
    if (done) {
      return;
    }
    done = true;
    tuner.report(this, ttftMs, textOnly && ttftMs >= 0 && Double.isFinite(ttftMs));
  }

  /** The attempt ended without a first token (failure, retry, non-streamed answer). */
  public void abandon() {
    if (done) {
      return;
    }
    done = true;
    tuner.report(this, 0, false);
  }

  public boolean done() {
    return done;
  }
}
