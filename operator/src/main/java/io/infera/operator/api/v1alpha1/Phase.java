package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** One-word summary of an InferaDeployment, shown in {@code kubectl get idep}. */
public enum Phase {
  /** Children created, nothing ready yet. */
  @JsonProperty("Pending")
  PENDING,
  /** A rollout is under way. */
  @JsonProperty("Progressing")
  PROGRESSING,
  /** Every router and worker is ready at the current generation. */
  @JsonProperty("Ready")
  READY,
  /** The spec is invalid or the fleet is impaired; see the Degraded condition. */
  @JsonProperty("Degraded")
  DEGRADED
}
