package io.infera.router.policy;

import io.infera.router.config.DecodeDemandConfig;
import java.util.List;

/**
 * A decode pick's input-demand decision and its reservation (shadow and on modes): the candidates'
 * projections, the original policy's target, the suggestion and the target actually taken. No
 * prompt or session text is kept, so {@link #describe} is safe to log.
 *
 * @param reservation released exactly once when the decode half ends, whichever way
 */
public record DemandPick(
    DecodeDemandConfig.Mode mode,
    InputTokens input,
    List<DemandSelection.Projected> candidates,
    DemandTarget original,
    DemandTarget suggested,
    DemandTarget actual,
    DecodeDemand.Reservation reservation) {

  public DemandPick {
    candidates = List.copyOf(candidates);
  }

  /** Whether the suggestion matched the original policy's choice (worker and rank). */
  public boolean agrees() {
    return suggested.equals(original);
  }

  /** key=value fields for the DEBUG decision event: targets and token counts only. */
  public String describe() {
    StringBuilder sb =
        new StringBuilder()
            .append("mode=")
            .append(mode.wire())
            .append(" input=")
            .append(input.label())
            .append(" tokens=")
            .append(input.tokens())
            .append(" n=")
            .append(input.n())
            .append(" original=")
            .append(original.label())
            .append(" suggested=")
            .append(suggested.label())
            .append(" actual=")
            .append(actual.label())
            .append(" agrees=")
            .append(agrees())
            .append(" projected=");
    for (int i = 0; i < candidates.size(); i++) {
      DemandSelection.Projected p = candidates.get(i);
      if (i > 0) {
        sb.append(',');
      }
      sb.append(p.target().label()).append(':').append((long) p.cost());
    }
    return sb.toString();
  }
}
