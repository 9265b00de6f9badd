package io.infera.router.policy;

import java.util.ArrayList;
import java.util.List;

/**
 * The decode input-demand choice, pure: each candidate target's projected cost {@code in-flight
 * input tokens + this request's tokens + W × requests it holds}; the lowest wins, equal costs go to
 * the lower original load, then to the earlier candidate.
 */
public final class DemandSelection {

  private DemandSelection() {}

  /**
   * A decode target as the choice sees it.
   *
   * @param originalLoad the original policy's load term for the target's worker (the tie-break)
   */
  public record Candidate(
      DemandTarget target, long inFlightTokens, int requests, double originalLoad) {}

  /** A candidate with its projected cost. */
  public record Projected(DemandTarget target, long inFlightTokens, int requests, double cost) {}

  /** The suggested target and every candidate's projection, in candidate order. */
  public record Choice(DemandTarget suggested, List<Projected> projected) {
    public Choice {
      projected = List.copyOf(projected);
    }
  }

  /**
   * @param candidates in a stable order; not empty
   * @param requestTokens this request's demand ({@link InputTokens#demand()})
   * @param requestWeight W, >= 0
   */
  public static Choice select(
      List<Candidate> candidates, long requestTokens, double requestWeight) {
    if (candidates.isEmpty()) {
      throw new IllegalArgumentException("no candidates to pick from");
    }
    List<Projected> out = new ArrayList<>(candidates.size());
    Candidate best = null;
    double bestCost = 0;
    for (Candidate c : candidates) {
      double cost = (double) c.inFlightTokens() + requestTokens + requestWeight * c.requests();
      out.add(new Projected(c.target(), c.inFlightTokens(), c.requests(), cost));
      if (best == null
          || cost < bestCost
          || (cost == bestCost && c.originalLoad() < best.originalLoad())) {
        best = c;
        bestCost = cost;
      }
    }
    return new Choice(best.target(), out);
  }
}
