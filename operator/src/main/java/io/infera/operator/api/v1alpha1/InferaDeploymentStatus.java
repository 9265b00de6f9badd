package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

/** What the operator observed; written only by the operator. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class InferaDeploymentStatus {

  @JsonPropertyDescription("The metadata.generation this status describes.")
  private Long observedGeneration;

  @JsonPropertyDescription("Pending, Progressing, Ready or Degraded.")
  private Phase phase;

  @JsonPropertyDescription("Ready/desired router replicas, e.g. 2/2.")
  private String routersSummary;

  @JsonPropertyDescription("Ready/desired workers over all pools, e.g. 3/4.")
  private String workersSummary;

  @JsonPropertyDescription("Prefix-cache hit ratio seen by the routers, in percent, e.g. 42.3%.")
  private String hitPercent;

  @JsonPropertyDescription(
      "Ready, Progressing, Degraded, EventsFlowing, IndexAccurate and RenderParity, each with"
          + " observedGeneration and"
          + " lastTransitionTime.")
  private List<Condition> conditions = new ArrayList<>();

  @JsonPropertyDescription("Replicas of each pool, by pool name.")
  private List<PoolStatus> pools = new ArrayList<>();

  @JsonPropertyDescription("The routers' view, from their /v1/admin/status.")
  private RouterStatus router;

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public Phase getPhase() {
    return phase;
  }

  public void setPhase(Phase phase) {
    this.phase = phase;
  }

  public String getRoutersSummary() {
    return routersSummary;
  }

  public void setRoutersSummary(String routersSummary) {
    this.routersSummary = routersSummary;
  }

  public String getWorkersSummary() {
    return workersSummary;
  }

  public void setWorkersSummary(String workersSummary) {
    this.workersSummary = workersSummary;
  }

  public String getHitPercent() {
    return hitPercent;
  }

  public void setHitPercent(String hitPercent) {
    this.hitPercent = hitPercent;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public List<PoolStatus> getPools() {
    return pools;
  }

  public void setPools(List<PoolStatus> pools) {
    this.pools = pools;
  }

  public RouterStatus getRouter() {
    return router;
  }

  public void setRouter(RouterStatus router) {
    this.router = router;
  }
}
