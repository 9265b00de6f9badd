package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The router's worker-selection policy (docs/routing.md). */
public enum RouterPolicy {
  @JsonProperty("kv-aware")
  KV_AWARE("kv-aware"),
  @JsonProperty("approx-prefix")
  APPROX_PREFIX("approx-prefix"),
  @JsonProperty("least-loaded")
  LEAST_LOADED("least-loaded"),
  @JsonProperty("round-robin")
  ROUND_ROBIN("round-robin");

  private final String value;

  RouterPolicy(String value) {
    this.value = value;
  }

  /** The name used in the resource and the RouterConfig. */
  public String value() {
    return value;
  }
}
