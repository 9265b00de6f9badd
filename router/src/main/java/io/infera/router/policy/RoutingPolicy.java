package io.infera.router.policy;

import io.infera.router.config.PolicyConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Picks one worker for a request. Implementations are pure: same inputs, same decision, no side
 * effects; the caller books the winner afterwards.
 */
public sealed interface RoutingPolicy
    permits RoutingPolicy.KvAware, RoutingPolicy.LeastLoaded, RoutingPolicy.RoundRobin {

  /**
   * @param candidates routable workers in a stable order (ties go to the earlier one); not empty
   * @param overlap request blocks and per-worker cache hits
   * @param load every candidate's load, and this pick's ticket
   */
  Decision select(List<Worker> candidates, Overlap overlap, LoadSnapshot load);

  /**
   * As {@link #select(List, Overlap, LoadSnapshot)} with each candidate's pool weight (tuned or
   * fixed) and the request's retention factor; policies that ignore the overlap ignore them.
   *
   * @param weights aligned with {@code candidates}
   */
  default Decision select(
      List<Worker> candidates, Overlap overlap, LoadSnapshot load, PickWeights weights) {
    return select(candidates, overlap, load);
  }

  static RoutingPolicy of(PolicyConfig config) {
    return switch (config.name()) {
      case KV_AWARE, APPROX_PREFIX -> new KvAware(config);
      case LEAST_LOADED -> new LeastLoaded();
      case ROUND_ROBIN -> new RoundRobin();
    };
  }

  /**
   * {@code cost(w) = weight(w) × (blocks − hits(w)) + active_blocks(w) + recent_blocks(w) +
   * engine(w)}, with {@code weight(w)} from {@link OverlapWeight#effective} (the pool's weight ×
   * the request's retention factor) and {@code engine(w)} the engine-reported term (0 when unknown
   * or off); lowest cost wins, ties go to the lower load, then to fewer requests in flight, then to
   * the earlier candidate.
   *
   * <p>A multimodal request ({@link Overlap#multimodal}) drops the text term and uses image
   * affinity in its place: {@code weight(w) × (B − B × held(w) / images) + load(w)}, where {@code
   * B} is its size in blocks with the images' estimate ({@link ImageOverlap#blocks}) and {@code
   * held(w)} its images the worker served lately. A repeat image is drawn to the worker holding it
   * as strongly as cached blocks would draw it; an image no worker holds leaves the term equal for
   * every candidate, so the pick is by load.
   */
  record KvAware(PolicyConfig config) implements RoutingPolicy {
    /** With the config's fixed weight per role and no retention hint. */
    @Override
    public Decision select(List<Worker> candidates, Overlap overlap, LoadSnapshot load) {
      double[] pool = new double[candidates.size()];
      for (int i = 0; i < pool.length; i++) {
        pool[i] = config.weightFor(candidates.get(i).role());
      }
      return select(candidates, overlap, load, new PickWeights(pool, OverlapWeight.NO_HINT));
    }

    @Override
    public Decision select(
        List<Worker> candidates, Overlap overlap, LoadSnapshot load, PickWeights weights) {
      requireCandidates(candidates);
      int blocks = overlap.requestBlocks();
      ImageOverlap images = overlap.images();
      List<Decision.Score> scores = new ArrayList<>(candidates.size());
      Decision.Score best = null;
      int bestInFlight = 0;
      for (int i = 0; i < candidates.size(); i++) {
        Worker w = candidates.get(i);
        WorkerLoad l = load.of(w.id());
        double weight = weights.effective(i);
        EngineTerm e = load.engine(w.id());
        Decision.Score s;
        if (images == null) {
          int hits = overlap.hits(w.id());
          double cost = weight * (blocks - hits) + l.total() + e.blocks();
          s =
              new Decision.Score(
                  w.id(), w.role(), hits, l.activeBlocks(), l.recentBlocks(), weight, cost, e);
        } else {
          double hitBlocks = images.hitBlocks(w.id());
          double cost = weight * (images.blocks() - hitBlocks) + l.total() + e.blocks();
          s =
              new Decision.Score(
                  w.id(),
                  w.role(),
                  0,
                  l.activeBlocks(),
                  l.recentBlocks(),
                  weight,
                  cost,
                  e,
                  images.held(w.id()),
                  hitBlocks);
        }
        scores.add(s);
        // Equal costs and load terms (charges drained, e.g. requests without a full block that
        // the engines sit on): the worker with fewer requests in flight.
        if (best == null
            || s.cost() < best.cost()
            || (s.cost() == best.cost() && s.loadTerm() < best.loadTerm())
            || (s.cost() == best.cost()
                && s.loadTerm() == best.loadTerm()
                && l.inFlight() < bestInFlight)) {
          best = s;
          bestInFlight = l.inFlight();
        }
      }
      return new Decision(best.worker(), blocks, scores, images == null ? 0 : images.images());
    }
  }

  /** Lowest {@code active_blocks + recent_blocks + engine}; ties to fewer in flight, then order. */
  record LeastLoaded() implements RoutingPolicy {
    @Override
    public Decision select(List<Worker> candidates, Overlap overlap, LoadSnapshot load) {
      requireCandidates(candidates);
      List<Decision.Score> scores = new ArrayList<>(candidates.size());
      Worker best = null;
      WorkerLoad bestLoad = null;
      double bestTotal = 0;
      for (Worker w : candidates) {
        WorkerLoad l = load.of(w.id());
        EngineTerm e = load.engine(w.id());
        double total = l.total() + e.blocks();
        scores.add(
            new Decision.Score(
                w.id(),
                w.role(),
                overlap.hits(w.id()),
                l.activeBlocks(),
                l.recentBlocks(),
                0,
                total,
                e));
        if (best == null
            || total < bestTotal
            || (total == bestTotal && l.inFlight() < bestLoad.inFlight())) {
          best = w;
          bestLoad = l;
          bestTotal = total;
        }
      }
      return new Decision(best.id(), overlap.requestBlocks(), scores);
    }
  }

  /** Candidate number {@code ticket mod n}. */
  record RoundRobin() implements RoutingPolicy {
    @Override
    public Decision select(List<Worker> candidates, Overlap overlap, LoadSnapshot load) {
      requireCandidates(candidates);
      List<Decision.Score> scores = new ArrayList<>(candidates.size());
      for (Worker w : candidates) {
        WorkerLoad l = load.of(w.id());
        scores.add(
            new Decision.Score(
                w.id(),
                w.role(),
                overlap.hits(w.id()),
                l.activeBlocks(),
                l.recentBlocks(),
                0,
                l.total()));
      }
      int i = (int) Math.floorMod(load.ticket(), (long) candidates.size());
      return new Decision(candidates.get(i).id(), overlap.requestBlocks(), scores);
    }
  }

  private static void requireCandidates(List<Worker> candidates) {
    if (candidates.isEmpty()) {
      throw new IllegalArgumentException("no candidates to pick from");
    }
  }
}
