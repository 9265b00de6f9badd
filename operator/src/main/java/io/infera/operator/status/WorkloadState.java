package io.infera.operator.status;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import java.util.Objects;

/**
 * Replica counts of one workload (a Deployment or the NATS StatefulSet), as its controller reported
 * them.
 *
 * @param name the object's name
 * @param desired {@code spec.replicas}
 * @param current pods of any revision ({@code status.replicas})
 * @param updated pods of the current revision
 * @param ready ready pods
 * @param observedCurrent the workload controller has seen the object's latest generation
 * @param stalled why the rollout cannot progress (deadline exceeded, replica failure), or null
 */
public record WorkloadState(
    String name,
    int desired,
    int current,
    int updated,
    int ready,
    boolean observedCurrent,
    String stalled) {

  public WorkloadState {
    Objects.requireNonNull(name, "name");
  }

  /** A workload that does not exist yet (just created, not in the cache). */
  public static WorkloadState missing(String name, int desired) {
    return new WorkloadState(name, desired, 0, 0, 0, false, null);
  }

  /** Every pod is of the current revision and ready, and no other pod is left. */
  public boolean rolledOut() {
    return observedCurrent && updated >= desired && ready >= desired && current <= desired;
  }

  public static WorkloadState of(Deployment d) {
    String name = d.getMetadata().getName();
    int desired = orZero(d.getSpec() == null ? null : d.getSpec().getReplicas());
    DeploymentStatus s = d.getStatus();
    if (s == null) {
      return new WorkloadState(name, desired, 0, 0, 0, false, null);
    }
    String stalled = null;
    if (s.getConditions() != null) {
      for (DeploymentCondition c : s.getConditions()) {
        if ("Progressing".equals(c.getType())
            && "False".equals(c.getStatus())
            && "ProgressDeadlineExceeded".equals(c.getReason())) {
          stalled = name + ": progress deadline exceeded";
        } else if ("ReplicaFailure".equals(c.getType()) && "True".equals(c.getStatus())) {
          stalled =
              name
                  + ": replica failure"
                  + (c.getMessage() == null || c.getMessage().isBlank()
                      ? ""
                      : " (" + c.getMessage() + ")");
        }
      }
    }
    return new WorkloadState(
        name,
        desired,
        orZero(s.getReplicas()),
        orZero(s.getUpdatedReplicas()),
        orZero(s.getReadyReplicas()),
        observed(s.getObservedGeneration(), d.getMetadata().getGeneration()),
        stalled);
  }

  public static WorkloadState of(StatefulSet sts) {
    String name = sts.getMetadata().getName();
    int desired = orZero(sts.getSpec() == null ? null : sts.getSpec().getReplicas());
    StatefulSetStatus s = sts.getStatus();
    if (s == null) {
      return new WorkloadState(name, desired, 0, 0, 0, false, null);
    }
    boolean sameRevision =
        s.getUpdateRevision() == null || s.getUpdateRevision().equals(s.getCurrentRevision());
    int updated = s.getUpdatedReplicas() != null ? s.getUpdatedReplicas() : 0;
    return new WorkloadState(
        name,
        desired,
        orZero(s.getReplicas()),
        sameRevision ? Math.max(updated, orZero(s.getCurrentReplicas())) : updated,
        orZero(s.getReadyReplicas()),
        observed(s.getObservedGeneration(), sts.getMetadata().getGeneration()),
        null);
  }

  private static boolean observed(Long observed, Long generation) {
    return observed != null && (generation == null || observed >= generation);
  }

  private static int orZero(Integer i) {
    return i == null ? 0 : i;
  }
}
