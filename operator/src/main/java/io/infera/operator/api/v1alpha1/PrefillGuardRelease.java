package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * When a prefill/decode pair's prefill booking is released (RouterConfig {@code
 * policy.prefillGuardRelease}).
 */
public enum PrefillGuardRelease {
  /** Held until the decode half ends (the router's default). */
  @JsonProperty("decode")
  DECODE("decode"),
  /** Released when the prefill answer completes. */
  @JsonProperty("completion")
  COMPLETION("completion");

  private final String value;

  PrefillGuardRelease(String value) {
    this.value = value;
  }

  /** The name used in the resource and the RouterConfig. */
  public String value() {
    return value;
  }
}
