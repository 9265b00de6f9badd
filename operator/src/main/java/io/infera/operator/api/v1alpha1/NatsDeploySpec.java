package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Quantity;

/** The operator-deployed NATS server: one JetStream replica with a persistent volume. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NatsDeploySpec {

  @JsonPropertyDescription("NATS server image. Default: the operator's pinned nats image.")
  private String image;

  @JsonPropertyDescription(
      "Size of the JetStream volume (PVC template; fixed once the StatefulSet exists). Default"
          + " 10Gi.")
  private Quantity storage;

  @JsonPropertyDescription("StorageClass of the JetStream volume. Default: the cluster's default.")
  private String storageClass;

  @JsonPropertyDescription("CPU and memory of the NATS server.")
  private ComputeResources resources;

  public String getImage() {
    return image;
  }

  public void setImage(String image) {
    this.image = image;
  }

  public Quantity getStorage() {
    return storage;
  }

  public void setStorage(Quantity storage) {
    this.storage = storage;
  }

  public String getStorageClass() {
    return storageClass;
  }

  public void setStorageClass(String storageClass) {
    this.storageClass = storageClass;
  }

  public ComputeResources getResources() {
    return resources;
  }

  public void setResources(ComputeResources resources) {
    this.resources = resources;
  }
}
