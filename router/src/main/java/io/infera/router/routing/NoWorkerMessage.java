package io.infera.router.routing;

import io.infera.router.kv.WorkerId;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * The words of a 503 "no routable worker" and of the matching {@code /ready} reason, built from
 * each worker's {@link Eligibility}. Pure.
 */
final class NoWorkerMessage {

  private NoWorkerMessage() {}

  /** For a request that found no mixed worker and no prefill + decode pair. */
  static String of(Collection<Fleet.Member> fleet, Set<WorkerId> exclude) {
    List<Fleet.Member> all = List.copyOf(fleet);
    if (all.isEmpty()) {
      return "no worker discovered yet for model pools (pool role mixed): none known";
    }
    List<String> pools =
        all.stream()
            .filter(m -> RequestRouter.FULL_REQUEST_ROLES.contains(m.info().role()))
            .map(m -> m.info().pool())
            .distinct()
            .sorted()
            .toList();
    if (pools.isEmpty()) {
      return "no routable worker in pool with role mixed: the fleet has only "
          + all.stream().map(m -> m.info().role().wireName()).distinct().sorted().toList()
          + " workers";
    }
    StringBuilder sb = new StringBuilder("no routable worker in pool");
    sb.append(pools.size() > 1 ? "s " : " ").append(String.join(", ", pools)).append(" (");
    boolean first = true;
    for (String pool : pools) {
      for (Fleet.Member m : all) {
        if (!m.info().pool().equals(pool)) {
          continue;
        }
        if (!first) {
          sb.append(", ");
        }
        first = false;
        sb.append(m.info().id()).append(": ").append(m.eligibility(exclude).reason());
      }
    }
    return sb.append(')').toString();
  }

  /** The {@code /ready} reason when nothing is routable: every worker and why it is out. */
  static String notReady(Collection<Fleet.Member> fleet) {
    StringBuilder sb = new StringBuilder("no routable worker (mixed, or prefill and decode)");
    if (fleet.isEmpty()) {
      return sb.append(": none discovered").toString();
    }
    sb.append(": ");
    boolean first = true;
    for (Fleet.Member m : fleet) {
      if (!first) {
        sb.append(", ");
      }
      first = false;
      sb.append(m.info().id())
          .append(" (")
          .append(m.info().role().wireName())
          .append(") ")
          .append(m.eligibility(Set.of()).reason());
    }
    return sb.toString();
  }
}
