package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a pool's workers do: whole requests, or one side of prefill/decode disaggregation. */
public enum PoolRole {
  @JsonProperty("mixed")
  MIXED("mixed"),
  @JsonProperty("prefill")
  PREFILL("prefill"),
  @JsonProperty("decode")
  DECODE("decode");

  private final String value;

  PoolRole(String value) {
    this.value = value;
  }

  /** The name used in the resource, labels and the RouterConfig. */
  public String value() {
    return value;
  }
}
