package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The inference engine every pool runs. */
public enum Engine {
  @JsonProperty("vllm")
  VLLM("vllm"),
  @JsonProperty("sglang")
  SGLANG("sglang"),
  /**
   * AMD's ATOM ({@code python -m atom.entrypoints.openai_server}, ROCm GPUs): vLLM's KV-event
   * layout from its own publisher (docs/atom.md).
   */
  @JsonProperty("atom")
  ATOM("atom"),
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

  /**
   * The engine name the relay and the RouterConfig carry: the KV-event wire format and the
   * prefill/decode hand-over (the simulator speaks vLLM's; ATOM is named for its own hand-over and
   * its publisher, which has no sequence frame and no replay).
   */
  public String eventFormat() {
    return switch (this) {
      case SGLANG -> "sglang";
      case ATOM -> "atom";
      case VLLM, SIM -> "vllm";
    };
  }

  /** The GPU resource a pool asks for when its {@code resources.gpuType} is not set. */
  public String defaultGpuType() {
    return this == ATOM ? "amd.com/gpu" : "nvidia.com/gpu";
  }

  /** Whether the engine loads real model weights (slow start, GPU rollouts). */
  public boolean loadsModelWeights() {
    return this != SIM;
  }
}
