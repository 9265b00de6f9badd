package io.infera.router.policy;

/**
 * The engine-reported part of one worker's load at a pick, in blocks (docs/routing.md,
 * "Engine-reported load"): work the engine says it has beyond what the router booked there, and a
 * penalty as its KV cache nears full. Added to the cost as it is; {@link #UNKNOWN} (no fresh
 * snapshot) adds nothing, so the pick falls back to the router's own view.
 *
 * @param blocks the term, already weighted; 0 when unknown
 * @param engineRequests requests the engine reported (running + waiting, every rank); NaN unknown
 * @param kvUsage the engine's KV-cache usage 0..1 (mean over ranks); NaN unknown
 * @param ageMs age of the snapshot the term comes from; -1 when unknown
 */
public record EngineTerm(double blocks, double engineRequests, double kvUsage, long ageMs) {

  /** No fresh snapshot: the term is 0. */
  public static final EngineTerm UNKNOWN = new EngineTerm(0, Double.NaN, Double.NaN, -1);

  /** KV usage from which a worker is penalised, rising linearly to one mean request at 1.0. */
  public static final double KV_KNEE = 0.9;

  public EngineTerm {
    if (!(blocks >= 0) || Double.isInfinite(blocks)) {
      throw new IllegalArgumentException("blocks must be finite and >= 0, got " + blocks);
    }
  }

  public boolean known() {
    return ageMs >= 0;
  }

  /**
   * The term from one snapshot:
   *
   * <pre>
   * weight × ( max(0, engineRequests − routerInFlightAtScrape) × meanBlocks
   *          + clamp((kvUsage − KV_KNEE) / (1 − KV_KNEE), 0, 1) × meanBlocks )
   * </pre>
   *
   * An unknown part (NaN) contributes 0. The router's in-flight count is the one at the time of the
   * scrape, not at the pick: the snapshot and the count then describe the same moment, and a
   * request that ended since the scrape is not counted as unseen load.
   *
   * @param engineRequests running + waiting as the engine reported them
   * @param kvUsage the engine's KV usage, 0..1
   * @param routerInFlightAtScrape requests the router (and every replica it hears of) had in flight
   *     there while the scrape ran (the larger of its counts at the start and the end)
   * @param meanBlocks mean blocks of a request booked on the worker (&gt; 0)
   * @param weight {@code policy.engineLoad.weight}
   */
  public static EngineTerm of(
      double engineRequests,
      double kvUsage,
      int routerInFlightAtScrape,
      double meanBlocks,
      double weight,
      long ageMs) {
    double unseen =
        Double.isFinite(engineRequests) ? Math.max(0, engineRequests - routerInFlightAtScrape) : 0;
    double pressure =
        Double.isFinite(kvUsage)
            ? Math.min(1, Math.max(0, (kvUsage - KV_KNEE) / (1 - KV_KNEE)))
            : 0;
    double m = Double.isFinite(meanBlocks) && meanBlocks > 0 ? meanBlocks : 1;
    double b = weight * (unseen + pressure) * m;
    return new EngineTerm(Double.isFinite(b) ? b : 0, engineRequests, kvUsage, Math.max(0, ageMs));
  }
}
