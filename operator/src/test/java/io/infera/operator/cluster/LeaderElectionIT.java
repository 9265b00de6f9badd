package io.infera.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.runtime.InferaOperatorRuntime;
import io.infera.operator.runtime.OperatorSettings;
import io.infera.operator.testing.FakeRouters;
import io.infera.operator.testing.KubeControlPlane;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Two operator replicas (each its service account, RBAC from {@code config/rbac}) compete for the
 * real Lease in {@code infera-system}: exactly one reconciles; when it stops, the other takes the
 * Lease within its duration and reconciles what is applied next.
 */
class LeaderElectionIT {

  /** JOSDK's lease duration (15 s) plus its retry period and slack for a loaded machine. */
  private static final Duration TAKEOVER = Duration.ofSeconds(45);

  private static final String LEASE = OperatorSettings.DEFAULT_LEASE_NAME;

  @Test
  void oneReplicaReconcilesAndTheOtherTakesOver() throws Exception {
    Instant started = Instant.now();
    KubeControlPlane cp = KubeControlPlane.shared();
    OperatorOnCluster.install(cp);
    String ns = cp.newNamespace("leader");
    AtomicInteger lostWhileRunning = new AtomicInteger();
    List<Replica> replicas = new ArrayList<>();
    try (KubernetesClient admin = cp.admin();
        FakeRouters routers = new FakeRouters()) {
      for (String id : List.of("replica-a", "replica-b")) {
        SimpleMeterRegistry metrics = new SimpleMeterRegistry();
        InferaOperatorRuntime rt =
            OperatorOnCluster.start(
                cp,
                Set.of(ns),
                Duration.ofSeconds(2),
                routers.urlTemplate(),
                Optional.of(
                    new OperatorSettings.LeaderElection(
                        LEASE, OperatorOnCluster.SYSTEM_NAMESPACE, id)),
                metrics,
                // Would be System.exit in production: counted here, and the test fails on it.
                lostWhileRunning::incrementAndGet);
        replicas.add(new Replica(id, rt, metrics));
      }
      try {
        Replica leader =
            await()
                .atMost(TAKEOVER)
                .until(() -> leader(replicas), r -> r != null && holder(admin).equals(r.id()));
        Replica standby = replicas.get(0) == leader ? replicas.get(1) : replicas.get(0);
        assertThat(standby.runtime().leading()).isFalse();
        assertThat(standby.runtime().ready()).as("a standby is ready: it can take over").isTrue();

        OperatorOnCluster.kubectlStdin(
            cp, OperatorOnCluster.sampleIn("sim.yaml", ns), "apply", "-f", "-");
        awaitObserved(admin, ns, "sim");
        assertThat(OperatorOnCluster.reconciliations(leader.metrics())).isPositive();
        assertThat(OperatorOnCluster.reconciliations(standby.metrics()))
            .as("the standby never reconciles")
            .isZero();

        Instant stopped = Instant.now();
        leader.runtime().close();
        await()
            .atMost(TAKEOVER)
            .untilAsserted(
                () -> {
                  assertThat(holder(admin)).isEqualTo(standby.id());
                  assertThat(standby.runtime().leading()).isTrue();
                });
        System.err.println(
            "LeaderElectionIT: "
                + standby.id()
                + " took over "
                + Duration.between(stopped, Instant.now()).toMillis()
                + " ms after "
                + leader.id()
                + " stopped");

        String second =
            OperatorOnCluster.sampleIn("sim.yaml", ns).replace("name: sim", "name: sim2");
        OperatorOnCluster.kubectlStdin(cp, second, "apply", "-f", "-");
        awaitObserved(admin, ns, "sim2");
        assertThat(admin.apps().deployments().inNamespace(ns).withName("sim2-workers").get())
            .as("the new leader created the new deployment's children")
            .isNotNull();
        assertThat(lostWhileRunning).as("no replica lost the Lease while running").hasValue(0);
        assertThat(OperatorOnCluster.forbiddenWrites(cp)).as("403 in the audit log").isEmpty();
        assertThat(OperatorOnCluster.forbiddenInLogs()).as("403 in the logs").isEmpty();
      } finally {
        for (Replica r : replicas) {
          r.runtime().close();
        }
        System.err.println(
            "LeaderElectionIT took " + Duration.between(started, Instant.now()).toMillis() + " ms");
      }
    }
  }

  private record Replica(String id, InferaOperatorRuntime runtime, SimpleMeterRegistry metrics) {}

  private static Replica leader(List<Replica> replicas) {
    List<Replica> leading = replicas.stream().filter(r -> r.runtime().leading()).toList();
    assertThat(leading).as("at most one replica leads").hasSizeLessThanOrEqualTo(1);
    return leading.isEmpty() ? null : leading.get(0);
  }

  private static String holder(KubernetesClient admin) {
    Lease lease =
        admin.leases().inNamespace(OperatorOnCluster.SYSTEM_NAMESPACE).withName(LEASE).get();
    return lease == null ? "" : String.valueOf(lease.getSpec().getHolderIdentity());
  }

  private static void awaitObserved(KubernetesClient admin, String ns, String name) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> admin.resources(InferaDeployment.class).inNamespace(ns).withName(name).get(),
            i ->
                i != null
                    && i.getStatus() != null
                    && Long.valueOf(1L).equals(i.getStatus().getObservedGeneration()));
  }
}
