package io.infera.operator.status;

import io.infera.operator.api.v1alpha1.PoolRole;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything one reconciliation observed about an InferaDeployment: the input of {@link
 * StatusAggregator}.
 *
 * @param generation the resource's {@code metadata.generation}
 * @param spec whether the spec was built or refused
 * @param router the router Deployment
 * @param nats the NATS StatefulSet; empty with an external NATS
 * @param pools by pool name, sorted
 * @param routerView what the routers report about themselves
 */
public record Observation(
    long generation,
    SpecOutcome spec,
    WorkloadState router,
    Optional<WorkloadState> nats,
    List<Pool> pools,
    RouterFetch routerView) {

  public Observation {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(router, "router");
    Objects.requireNonNull(nats, "nats");
    Objects.requireNonNull(routerView, "routerView");
    pools = List.copyOf(pools);
  }

  /** One pool's Deployment. */
  public record Pool(String name, PoolRole role, WorkloadState workload) {
    public Pool {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(workload, "workload");
    }
  }

  /** Whether the current spec could be turned into children. */
  public sealed interface SpecOutcome permits Valid, Invalid {}

  /** The children follow the current spec. */
  public record Valid() implements SpecOutcome {}

  /**
   * The spec was refused; the children were left as they were.
   *
   * @param reason the condition reason (InvalidSpec)
   * @param message names every offending field
   */
  public record Invalid(String reason, String message) implements SpecOutcome {
    public Invalid {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(message, "message");
    }
  }
}
