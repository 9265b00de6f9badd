package io.infera.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.desired.Labels;
import io.infera.operator.desired.RenderInputs;
import io.infera.operator.testing.Fixtures;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** From the secondary resources the informers hold to the workloads the status is made of. */
class ChildObserverTest {

  /** {@code demo}: router ×2 (the default), NATS deployed, pools decode ×2 and prefill ×2. */
  private static final RenderInputs PD =
      inputs(Fixtures.idep(Engine.SIM, PoolRole.PREFILL, PoolRole.DECODE));

  /** {@code demo} with an external NATS and one mixed pool ×2. */
  private static final RenderInputs EXTERNAL_NATS = inputs(externalNats());

  private static RenderInputs inputs(InferaDeployment idep) {
    return Fixtures.fleet(idep).inputs();
  }

  private static InferaDeployment externalNats() {
    InferaDeployment idep = Fixtures.idep(Engine.SIM, PoolRole.MIXED);
    idep.getSpec().getNats().setUrl("nats://nats.infra:4222");
    return idep;
  }

  /**
   * A Deployment whose controller reports {@code ready} of {@code desired} replicas, rolled out.
   */
  private static Deployment deployment(
      String name, int desired, int ready, Map<String, String> labels) {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName(name)
        .withGeneration(4L)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withReplicas(desired)
        .endSpec()
        .withNewStatus()
        .withObservedGeneration(4L)
        .withReplicas(desired)
        .withUpdatedReplicas(desired)
        .withReadyReplicas(ready)
        .endStatus()
        .build();
  }

  private static Deployment deployment(String name, int desired, int ready) {
    return deployment(name, desired, ready, Map.of());
  }

  private static Deployment worker(String name, int desired, int ready, String pool, String role) {
    Map<String, String> labels = new TreeMap<>(Labels.common("demo"));
    labels.put(Labels.COMPONENT, Labels.COMPONENT_WORKER);
    if (pool != null) {
      labels.put(Labels.POOL, pool);
    }
    if (role != null) {
      labels.put(Labels.ROLE, role);
    }
    return deployment(name, desired, ready, labels);
  }

  private static StatefulSet nats(String name, int ready) {
    return new StatefulSetBuilder()
        .withNewMetadata()
        .withName(name)
        .withGeneration(1L)
        .endMetadata()
        .withNewSpec()
        .withReplicas(1)
        .endSpec()
        .withNewStatus()
        .withObservedGeneration(1L)
        .withReplicas(1)
        .withCurrentReplicas(1)
        .withReadyReplicas(ready)
        .endStatus()
        .build();
  }

  /** What {@link #deployment} and {@link #nats} report, written out. */
  private static WorkloadState running(String name, int desired, int ready) {
    return new WorkloadState(name, desired, desired, desired, ready, true, null);
  }

  private static WorkloadState missing(String name, int desired) {
    return new WorkloadState(name, desired, 0, 0, 0, false, null);
  }

  private static Observation.Pool pool(String name, PoolRole role, WorkloadState w) {
    return new Observation.Pool(name, role, w);
  }

  record Case(
      String name,
      Optional<RenderInputs> desired,
      List<Deployment> deployments,
      List<StatefulSet> statefulSets,
      ObservedChildren expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "just created: every child missing, with the desired replicas",
            Optional.of(PD),
            List.of(),
            List.of(),
            new ObservedChildren(
                missing("demo-router", 2),
                Optional.of(missing("demo-nats", 1)),
                List.of(
                    pool("decode", PoolRole.DECODE, missing("demo-decode", 2)),
                    pool("prefill", PoolRole.PREFILL, missing("demo-prefill", 2))))),
        new Case(
            "running: each child found by its name, pools in the spec's order",
            Optional.of(PD),
            List.of(
                deployment("demo-prefill", 2, 1),
                deployment("demo-router", 2, 2),
                deployment("demo-decode", 2, 0)),
            List.of(nats("demo-nats", 1)),
            new ObservedChildren(
                running("demo-router", 2, 2),
                Optional.of(running("demo-nats", 1, 1)),
                List.of(
                    pool("decode", PoolRole.DECODE, running("demo-decode", 2, 0)),
                    pool("prefill", PoolRole.PREFILL, running("demo-prefill", 2, 1))))),
        new Case(
            "another InferaDeployment's children and a removed pool are not ours to report",
            Optional.of(PD),
            List.of(
                deployment("other-router", 3, 3),
                deployment("other-prefill", 5, 5),
                deployment("demo-old", 4, 4),
                deployment("demo-prefill", 2, 2)),
            List.of(nats("other-nats", 1)),
            new ObservedChildren(
                missing("demo-router", 2),
                Optional.of(missing("demo-nats", 1)),
                List.of(
                    pool("decode", PoolRole.DECODE, missing("demo-decode", 2)),
                    pool("prefill", PoolRole.PREFILL, running("demo-prefill", 2, 2))))),
        new Case(
            "external NATS: no NATS workload, even if a StatefulSet is left over",
            Optional.of(EXTERNAL_NATS),
            List.of(deployment("demo-router", 2, 1), deployment("demo-mixed", 2, 2)),
            List.of(nats("demo-nats", 1)),
            new ObservedChildren(
                running("demo-router", 2, 1),
                Optional.empty(),
                List.of(pool("mixed", PoolRole.MIXED, running("demo-mixed", 2, 2))))),
        new Case(
            "refused spec: nothing desired, the pools as they run, from their labels",
            Optional.empty(),
            List.of(
                deployment("demo-router", 2, 2, Map.of(Labels.COMPONENT, Labels.COMPONENT_ROUTER)),
                worker("demo-b", 3, 1, "b", "decode"),
                worker("demo-a", 1, 1, "a", "prefill"),
                worker("demo-x", 1, 0, null, "gpu"),
                deployment("demo-unlabelled", 1, 1)),
            List.of(nats("demo-nats", 0)),
            new ObservedChildren(
                running("demo-router", 2, 2),
                Optional.of(running("demo-nats", 1, 0)),
                List.of(
                    pool("a", PoolRole.PREFILL, running("demo-a", 1, 1)),
                    pool("b", PoolRole.DECODE, running("demo-b", 3, 1)),
                    // No pool label: the Deployment's name; a role this operator never writes.
                    pool("demo-x", null, running("demo-x", 1, 0))))),
        new Case(
            "refused spec before anything ran: a router of zero replicas, no NATS expected",
            Optional.empty(),
            List.of(),
            List.of(),
            new ObservedChildren(missing("demo-router", 0), Optional.empty(), List.of())));
  }

  @ParameterizedTest
  @MethodSource("cases")
  void observesTheChildren(Case c) {
    assertThat(ChildObserver.observe("demo", c.desired(), c.deployments(), c.statefulSets()))
        .isEqualTo(c.expected());
  }

  @Test
  void theRoutersAreAskedOnlyWhenARouterReplicaIsReady() {
    AtomicInteger asked = new AtomicInteger();
    RouterView view = new RouterView(true, 4, 100, 0.5, 0.25, 4, 0);
    ObservedChildren none =
        new ObservedChildren(running("demo-router", 2, 0), Optional.empty(), List.of());
    Observation o =
        none.observation(
            7,
            new Observation.Valid(),
            () -> {
              asked.incrementAndGet();
              return new RouterFetch.Known(view);
            });
    assertThat(asked).hasValue(0);
    assertThat(o.routerView()).isEqualTo(new RouterFetch.Unknown(ObservedChildren.NO_READY_ROUTER));

    List<Observation.Pool> pools =
        new ArrayList<>(List.of(pool("mixed", PoolRole.MIXED, running("demo-mixed", 2, 2))));
    ObservedChildren one =
        new ObservedChildren(
            running("demo-router", 2, 1), Optional.of(running("demo-nats", 1, 1)), pools);
    Observation.Invalid refused = new Observation.Invalid("InvalidSpec", "spec.pools: bad");
    Observation p =
        one.observation(
            7,
            refused,
            () -> {
              asked.incrementAndGet();
              return new RouterFetch.Known(view);
            });
    assertThat(asked).hasValue(1);
    assertThat(p)
        .isEqualTo(
            new Observation(
                7,
                refused,
                running("demo-router", 2, 1),
                Optional.of(running("demo-nats", 1, 1)),
                pools,
                new RouterFetch.Known(view)));
  }
}
