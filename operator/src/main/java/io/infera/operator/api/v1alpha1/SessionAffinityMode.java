package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Which picks a session keeps (RouterConfig {@code policy.sessionAffinity.mode}; docs/routing.md,
 * "Session affinity").
 */
public enum SessionAffinityMode {
  /** No session affinity (the router's default). */
  @JsonProperty("off")
  OFF("off"),
  /** The prefill-side pick: the mixed worker, or the prefill worker of a pair. */
  @JsonProperty("prefill")
  PREFILL("prefill"),
  /** Also the decode worker of a pair and its data-parallel rank. */
  @JsonProperty("both")
  BOTH("both");

  private final String value;

  SessionAffinityMode(String value) {
    this.value = value;
  }

  /** The name used in the resource and the RouterConfig. */
  public String value() {
    return value;
  }
}
