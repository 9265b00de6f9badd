package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How the router tokenizes prompts. */
public enum TokenizerMode {
  /** The router's own tokenizer ({@code tokenizer.path} or {@code tokenizer.hub}). */
  @JsonProperty("local")
  LOCAL("local"),
  /** A worker's {@code POST /tokenize}: exact by construction, one extra hop. */
  @JsonProperty("engine")
  ENGINE("engine");

  private final String value;

  TokenizerMode(String value) {
    this.value = value;
  }

  /** The name used in the resource and the RouterConfig. */
  public String value() {
    return value;
  }
}
