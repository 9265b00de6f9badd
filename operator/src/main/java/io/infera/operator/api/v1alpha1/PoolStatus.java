package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Replicas of one pool's Deployment. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PoolStatus {

  @JsonPropertyDescription("Pool name.")
  private String name;

  @JsonPropertyDescription("Pool role.")
  private PoolRole role;

  @JsonPropertyDescription("Desired workers.")
  private Integer replicas;

  @JsonPropertyDescription("Ready workers.")
  private Integer readyReplicas;

  public PoolStatus() {}

  public PoolStatus(String name, PoolRole role, Integer replicas, Integer readyReplicas) {
    this.name = name;
    this.role = role;
    this.replicas = replicas;
    this.readyReplicas = readyReplicas;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public PoolRole getRole() {
    return role;
  }

  public void setRole(PoolRole role) {
    this.role = role;
  }

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
}
