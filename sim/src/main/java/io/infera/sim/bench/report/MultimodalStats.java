package io.infera.sim.bench.report;

/**
 * Where a run's images went (routed requests only); all zero for a workload without images.
 *
 * @param requests routed requests with at least one image
 * @param images their images (one per new image of the turn and every earlier one of the
 *     conversation, which the history sends again)
 * @param repeatImages images some worker had served before in this run
 * @param repeatToWarm of those, the ones routed to a worker that had served them (a warm worker)
 * @param routerAffinityHits images the router's pick found in its image-affinity memory
 */
public record MultimodalStats(
    long requests, long images, long repeatImages, long repeatToWarm, long routerAffinityHits) {
  public static final MultimodalStats NONE = new MultimodalStats(0, 0, 0, 0, 0);

  /** Repeat images that reached a warm worker, as a fraction; NaN without repeats. */
  public double warmFraction() {
    return repeatImages == 0 ? Double.NaN : (double) repeatToWarm / repeatImages;
  }

  /** Both runs' counts (an arm's seeds pooled). */
  public MultimodalStats plus(MultimodalStats o) {
    return new MultimodalStats(
        requests + o.requests,
        images + o.images,
        repeatImages + o.repeatImages,
        repeatToWarm + o.repeatToWarm,
        routerAffinityHits + o.routerAffinityHits);
  }
}
