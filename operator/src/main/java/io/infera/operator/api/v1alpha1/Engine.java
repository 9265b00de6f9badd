package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The inference engine every pool runs. */
public enum Engine {
  @JsonProperty("vllm")
  VLLM("vllm"),
  @JsonProperty("sglang")
  SGLANG("sglang"),
  /** The Infera simulator ({@code infera-sim engine}): no GPU, vLLM's APIs and KV events. */
  @JsonProperty("sim")
  SIM("sim");

  private final String value;

  Engine(String value) {
    this.value = value;
  }

  /** The name used in the resource, labels and the RouterConfig. */
  public String value() {
    return value;
  }

  /** The KV-event wire format the engine publishes (the simulator speaks vLLM's). */
  public String eventFormat() {
    return this == SGLANG ? "sglang" : "vllm";
  }

  /** Whether the engine loads real model weights (slow start, GPU rollouts). */
  public boolean loadsModelWeights() {
    return this != SIM;
  }
}
