package io.infera.router.policy;

import io.infera.router.config.Role;
import io.infera.router.kv.WorkerId;
import java.util.List;

/**
 * A pick and why: every candidate's score, for {@code /v1/admin/explain} and debug logs.
 *
 * @param winner the chosen worker
 * @param requestBlocks full blocks in the request
 * @param scores one per candidate, in candidate order
 * @param images media in a multimodal request (its cost used image affinity), 0 for text only
 */
public record Decision(WorkerId winner, int requestBlocks, List<Score> scores, int images) {

  public Decision {
    scores = List.copyOf(scores);
  }

  /** A text-only request's decision. */
  public Decision(WorkerId winner, int requestBlocks, List<Score> scores) {
    this(winner, requestBlocks, scores, 0);
  }

  /** The winner's score. */
  public Score winnerScore() {
    for (Score s : scores) {
      if (s.worker().equals(winner)) {
        return s;
      }
    }
    throw new IllegalStateException("winner " + winner + " has no score");
  }

  /**
   * One candidate's terms.
   *
   * @param hits leading request blocks the worker caches (0 for a multimodal request: its text hits
   *     are not used)
   * @param weight overlap weight applied to the worker's role
   * @param cost {@code weight × (requestBlocks − hits) + activeBlocks + recentBlocks +
   *     engineBlocks} (kv-aware; the load term alone for the other policies)
   * @param engine the engine-reported term ({@link EngineTerm#UNKNOWN} without one)
   * @param imageHits a multimodal request's images the worker served lately (0 for text only)
   * @param imageHitBlocks the blocks those count as in the cost, in place of {@code hits}
   */
  public record Score(
      WorkerId worker,
      Role role,
      int hits,
      long activeBlocks,
      double recentBlocks,
      double weight,
      double cost,
      EngineTerm engine,
      int imageHits,
      double imageHitBlocks) {

    public Score {
      engine = engine == null ? EngineTerm.UNKNOWN : engine;
    }

    /** A text-only request's score. */
    public Score(
        WorkerId worker,
        Role role,
        int hits,
        long activeBlocks,
        double recentBlocks,
        double weight,
        double cost,
        EngineTerm engine) {
      this(worker, role, hits, activeBlocks, recentBlocks, weight, cost, engine, 0, 0);
    }

    /** A score without engine-reported load. */
    public Score(
        WorkerId worker,
        Role role,
        int hits,
        long activeBlocks,
        double recentBlocks,
        double weight,
        double cost) {
      this(worker, role, hits, activeBlocks, recentBlocks, weight, cost, EngineTerm.UNKNOWN);
    }

    /** The load part of the cost: router-booked load plus the engine term. */
    public double loadTerm() {
      return activeBlocks + recentBlocks + engine.blocks();
    }
  }
}
