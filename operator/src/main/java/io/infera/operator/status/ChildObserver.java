package io.infera.operator.status;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.desired.Labels;
import io.infera.operator.desired.Names;
import io.infera.operator.desired.RenderInputs;
import io.infera.operator.desired.RenderInputs.PoolSettings;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Maps the secondary resources of one InferaDeployment (its Deployments and StatefulSets) to the
 * {@link ObservedChildren} the status is aggregated from.
 *
 * <p>Pure: the reconciler hands over what the informers hold. Children are found by their names
 * ({@link Names}); a child the spec wants but the cache does not hold yet counts as missing, with
 * the desired replica count. With a refused spec nothing is desired: the router and NATS are
 * reported as they are, and the pools as they run (Deployments labelled as workers).
 */
public final class ChildObserver {

  private ChildObserver() {}

  /**
   * @param deployment the InferaDeployment's name
   * @param desired the inputs of the built spec; empty when the spec is refused
   * @param deployments the Deployments owned by the InferaDeployment (router and pools)
   * @param statefulSets the StatefulSets owned by it (NATS)
   */
  public static ObservedChildren observe(
      String deployment,
      Optional<RenderInputs> desired,
      Collection<Deployment> deployments,
      Collection<StatefulSet> statefulSets) {
    Map<String, Deployment> byName = new TreeMap<>();
    deployments.forEach(d -> byName.put(d.getMetadata().getName(), d));

    String routerName = Names.router(deployment);
    Deployment routerDeployment = byName.get(routerName);
    WorkloadState router =
        routerDeployment != null
            ? WorkloadState.of(routerDeployment)
            : WorkloadState.missing(routerName, desired.map(i -> i.router().replicas()).orElse(0));

    String natsName = Names.nats(deployment);
    Optional<WorkloadState> nats = Optional.empty();
    if (desired.isEmpty() || desired.get().nats().deployed()) {
      nats =
          statefulSets.stream()
              .filter(s -> s.getMetadata().getName().equals(natsName))
              .findFirst()
              .map(WorkloadState::of)
              // Expected only when the spec asks for it.
              .or(() -> desired.map(i -> WorkloadState.missing(natsName, 1)));
    }

    List<Observation.Pool> pools = new ArrayList<>();
    if (desired.isPresent()) {
      for (PoolSettings p : desired.get().pools()) {
        String poolName = Names.pool(deployment, p.name());
        Deployment d = byName.get(poolName);
        pools.add(
            new Observation.Pool(
                p.name(),
                p.role(),
                d != null ? WorkloadState.of(d) : WorkloadState.missing(poolName, p.replicas())));
      }
    } else {
      for (Deployment d : byName.values()) {
        Map<String, String> labels = d.getMetadata().getLabels();
        if (labels != null && Labels.COMPONENT_WORKER.equals(labels.get(Labels.COMPONENT))) {
          pools.add(
              new Observation.Pool(
                  labels.getOrDefault(Labels.POOL, d.getMetadata().getName()),
                  role(labels.get(Labels.ROLE)),
                  WorkloadState.of(d)));
        }
      }
    }
    return new ObservedChildren(router, nats, pools);
  }

  /** The role a pool's label names, or null for a label this operator did not write. */
  private static PoolRole role(String label) {
    for (PoolRole r : PoolRole.values()) {
      if (r.value().equals(label)) {
        return r;
      }
    }
    return null;
  }
}
