package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** The routers' Deployment and their own view of the fleet ({@code /v1/admin/status}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RouterStatus {

  @JsonPropertyDescription("Desired router replicas.")
  private Integer replicas;

  @JsonPropertyDescription("Ready router replicas.")
  private Integer readyReplicas;

  @JsonPropertyDescription("Workers the routers discovered.")
  private Integer workers;

  @JsonPropertyDescription("Blocks in the routers' prefix index.")
  private Long indexedBlocks;

  @JsonPropertyDescription("Largest per-worker KV-event lag, in seconds.")
  private Double eventLagSeconds;

  @JsonPropertyDescription("Prefix-cache hit ratio (hit blocks / request blocks), 0..1.")
  private Double hitRatio;

  public Integer getReplicas() {
    return replicas;
  }

  public void setReplicas(Integer replicas) {
    this.replicas = replicas;
  }

  public Integer getReadyReplicas() {
    return readyReplicas;
  }

  public void setReadyReplicas(Integer readyReplicas) {
    this.readyReplicas = readyReplicas;
  }

  public Integer getWorkers() {
    return workers;
  }

  public void setWorkers(Integer workers) {
    this.workers = workers;
  }

  public Long getIndexedBlocks() {
    return indexedBlocks;
  }

  public void setIndexedBlocks(Long indexedBlocks) {
    this.indexedBlocks = indexedBlocks;
  }

  public Double getEventLagSeconds() {
    return eventLagSeconds;
  }

  public void setEventLagSeconds(Double eventLagSeconds) {
    this.eventLagSeconds = eventLagSeconds;
  }

  public Double getHitRatio() {
    return hitRatio;
  }

  public void setHitRatio(Double hitRatio) {
    this.hitRatio = hitRatio;
  }
}
