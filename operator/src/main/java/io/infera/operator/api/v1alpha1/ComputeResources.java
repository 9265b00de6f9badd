package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Quantity;

/** CPU and memory of a container the operator sizes (router, NATS). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ComputeResources {

  @JsonPropertyDescription("CPU request, e.g. 500m or 2.")
  private Quantity cpu;

  @JsonPropertyDescription("Memory request and limit, e.g. 1Gi.")
  private Quantity memory;

  public Quantity getCpu() {
    return cpu;
  }

  public void setCpu(Quantity cpu) {
    this.cpu = cpu;
  }

  public Quantity getMemory() {
    return memory;
  }

  public void setMemory(Quantity memory) {
    this.memory = memory;
  }
}
