package io.infera.operator.status;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The workloads of one InferaDeployment as the informers hold them: the part of an {@link
 * Observation} that comes from the cluster ({@link ChildObserver} builds it).
 *
 * @param router the router Deployment (missing: zero ready replicas)
 * @param nats the NATS StatefulSet; empty with an external NATS
 * @param pools in the spec's order (by pool name), or as they run when the spec is refused
 */
public record ObservedChildren(
    WorkloadState router, Optional<WorkloadState> nats, List<Observation.Pool> pools) {

  /** Why the routers' view is unknown while no router replica is ready. */
  public static final String NO_READY_ROUTER = "no router replica is ready";

  public ObservedChildren {
    Objects.requireNonNull(router, "router");
    Objects.requireNonNull(nats, "nats");
    pools = List.copyOf(pools);
  }

  /**
   * The whole observation. The routers are asked for their view only when a router replica is
   * ready: otherwise nobody would answer and the call would only wait for its timeout.
   *
   * @param generation the resource's {@code metadata.generation}
   * @param routers asks the routers ({@link RouterStatusClient#fetch}); called at most once
   */
  public Observation observation(
      long generation, Observation.SpecOutcome spec, Supplier<RouterFetch> routers) {
    RouterFetch view =
        router.ready() > 0 ? routers.get() : new RouterFetch.Unknown(NO_READY_ROUTER);
    return new Observation(generation, spec, router, nats, pools, view);
  }
}
