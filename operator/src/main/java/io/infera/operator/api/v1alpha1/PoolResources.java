package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.kubernetes.api.model.Quantity;

/** Resources of one engine container. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PoolResources {

  @Default("0")
  @Min(0)
  @JsonPropertyDescription(
      "GPUs per worker (request = limit of gpuType). A pool with GPUs rolls out with maxSurge 0.")
  private Integer gpu = 0;

  @Pattern(Rules.GPU_TYPE_PATTERN)
  @JsonPropertyDescription(
      "Extended resource name of the GPU, e.g. nvidia.com/gpu or amd.com/gpu. Default:"
          + " amd.com/gpu for engine atom, nvidia.com/gpu for the others.")
  private String gpuType;

  @JsonPropertyDescription("CPU request, e.g. 8.")
  private Quantity cpu;

  @JsonPropertyDescription("Memory request and limit, e.g. 64Gi.")
  private Quantity memory;

  @JsonPropertyDescription(
      "Size of /dev/shm (an in-memory emptyDir; tensor-parallel engines need several GiB)."
          + " Default: unbounded for vllm/sglang, none for sim.")
  private Quantity sharedMemory;

  public Integer getGpu() {
    return gpu;
  }

  public void setGpu(Integer gpu) {
    this.gpu = gpu;
  }

  public String getGpuType() {
    return gpuType;
  }

  public void setGpuType(String gpuType) {
    this.gpuType = gpuType;
  }

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

  public Quantity getSharedMemory() {
    return sharedMemory;
  }

  public void setSharedMemory(Quantity sharedMemory) {
    this.sharedMemory = sharedMemory;
  }
}
