package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Decode input-demand routing (RouterConfig {@code policy.decodeInputDemand}; docs/routing.md,
 * "Decode input demand").
 */
public enum DecodeInputDemand {
  /** Decode picks by the usual cost; nothing is booked (the router's default). */
  @JsonProperty("off")
  OFF("off"),
  /** The picks of {@code off}, plus the demand bookkeeping, a suggested target and metrics. */
  @JsonProperty("shadow")
  SHADOW("shadow"),
  /** Each decode half goes to the target with the lowest projected input demand. */
  @JsonProperty("on")
  ON("on");

  private final String value;

  DecodeInputDemand(String value) {
    this.value = value;
  }

  /** The name used in the resource and the RouterConfig. */
  public String value() {
    return value;
  }
}
