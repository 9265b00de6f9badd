package io.infera.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import org.junit.jupiter.api.Test;

/** Replica counts as the workload controllers report them. */
class WorkloadStateTest {

  private static DeploymentBuilder deployment(long generation, int replicas) {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName("d-workers")
        .withGeneration(generation)
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .endSpec();
  }

  @Test
  void aDeploymentWithoutStatusIsNotRolledOut() {
    WorkloadState w = WorkloadState.of(deployment(1, 3).build());
    assertThat(w).isEqualTo(new WorkloadState("d-workers", 3, 0, 0, 0, false, null));
    assertThat(w.rolledOut()).isFalse();
  }

  @Test
  void aRolledOutDeployment() {
    Deployment d =
        deployment(2, 3)
            .withNewStatus()
            .withObservedGeneration(2L)
            .withReplicas(3)
            .withUpdatedReplicas(3)
            .withReadyReplicas(3)
            .withAvailableReplicas(3)
            .endStatus()
            .build();
    WorkloadState w = WorkloadState.of(d);
    assertThat(w.rolledOut()).isTrue();
    assertThat(w.ready()).isEqualTo(3);
  }

  @Test
  void anOlderObservedGenerationIsNotRolledOut() {
    Deployment d =
        deployment(3, 3)
            .withNewStatus()
            .withObservedGeneration(2L)
            .withReplicas(3)
            .withUpdatedReplicas(3)
            .withReadyReplicas(3)
            .endStatus()
            .build();
    assertThat(WorkloadState.of(d).rolledOut()).isFalse();
  }

  @Test
  void scaledToZeroIsRolledOut() {
    Deployment d = deployment(1, 0).withNewStatus().withObservedGeneration(1L).endStatus().build();
    assertThat(WorkloadState.of(d).rolledOut()).isTrue();
  }

  @Test
  void stalledRollouts() {
    Deployment deadline =
        deployment(1, 3)
            .withNewStatus()
            .withObservedGeneration(1L)
            .addNewCondition()
            .withType("Progressing")
            .withStatus("False")
            .withReason("ProgressDeadlineExceeded")
            .endCondition()
            .endStatus()
            .build();
    assertThat(WorkloadState.of(deadline).stalled())
        .isEqualTo("d-workers: progress deadline exceeded");
    Deployment quota =
        deployment(1, 3)
            .withNewStatus()
            .withObservedGeneration(1L)
            .addNewCondition()
            .withType("ReplicaFailure")
            .withStatus("True")
            .withMessage("exceeded quota: gpu")
            .endCondition()
            .endStatus()
            .build();
    assertThat(WorkloadState.of(quota).stalled())
        .isEqualTo("d-workers: replica failure (exceeded quota: gpu)");
    Deployment progressing =
        deployment(1, 3)
            .withNewStatus()
            .addNewCondition()
            .withType("Progressing")
            .withStatus("True")
            .withReason("ReplicaSetUpdated")
            .endCondition()
            .endStatus()
            .build();
    assertThat(WorkloadState.of(progressing).stalled()).isNull();
  }

  @Test
  void statefulSetRevisions() {
    StatefulSet rolling =
        new StatefulSetBuilder()
            .withNewMetadata()
            .withName("d-nats")
            .withGeneration(1L)
            .endMetadata()
            .withNewSpec()
            .withReplicas(1)
            .endSpec()
            .withNewStatus()
            .withObservedGeneration(1L)
            .withReplicas(1)
            .withReadyReplicas(1)
            .withCurrentReplicas(1)
            .withCurrentRevision("a")
            .withUpdateRevision("b")
            .endStatus()
            .build();
    assertThat(WorkloadState.of(rolling).rolledOut()).isFalse();
    rolling.getStatus().setUpdateRevision("a");
    assertThat(WorkloadState.of(rolling).rolledOut()).isTrue();
  }
}
