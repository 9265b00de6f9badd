package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;

/** The router Deployment and the policy it is configured with. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RouterSpec {

  @Default("2")
  @Min(0)
  @JsonPropertyDescription("Router replicas behind the router Service.")
  private Integer replicas = 2;

  @JsonPropertyDescription(
      "Router image (also runs the relay sidecar in every worker pod). Default: the operator's"
          + " own version of infera-router.")
  private String image;

  @Default("kv-aware")
  @JsonPropertyDescription(
      "Worker selection: kv-aware (KV events), approx-prefix (no events), least-loaded or"
          + " round-robin.")
  private RouterPolicy policy = RouterPolicy.KV_AWARE;

  @Min(0)
  @JsonPropertyDescription(
      "A fixed weight of a request's missed blocks against worker load in the kv-aware cost."
          + " Unset (and no prefill/decode weight set), the routers tune each pool's weight online"
          + " from observed time to first token (RouterConfig policy.overlapWeightMode auto).")
  private Double overlapWeight;

  @Min(0)
  @JsonPropertyDescription("Overlap weight for prefill workers (default: overlapWeight).")
  private Double prefillOverlapWeight;

  @Min(0)
  @JsonPropertyDescription("Overlap weight for decode workers (default: overlapWeight).")
  private Double decodeOverlapWeight;

  @JsonPropertyDescription(
      "Where the router's tokenizer comes from. Default: mode engine (asks a worker's /tokenize).")
  private TokenizerSpec tokenizer = new TokenizerSpec();

  @JsonPropertyDescription(
      "The router's KV index: its memory cap, from which the default memory of a replica grows.")
  private RouterIndexSpec index = new RouterIndexSpec();

  @JsonPropertyDescription(
      "CPU and memory of each router replica (requests; memory also limit). Default memory: 1Gi,"
          + " or more when index.maxBlocks needs it (docs/operations.md, \"Sizing the index\").")
  private ComputeResources resources = new ComputeResources();

  public Integer getReplicas() {
    return replicas;
  }

  public void setReplicas(Integer replicas) {
    this.replicas = replicas;
  }

  public String getImage() {
    return image;
  }

  public void setImage(String image) {
    this.image = image;
  }

  public RouterPolicy getPolicy() {
    return policy;
  }

  public void setPolicy(RouterPolicy policy) {
    this.policy = policy;
  }

  public Double getOverlapWeight() {
    return overlapWeight;
  }

  public void setOverlapWeight(Double overlapWeight) {
    this.overlapWeight = overlapWeight;
  }

  public Double getPrefillOverlapWeight() {
    return prefillOverlapWeight;
  }

  public void setPrefillOverlapWeight(Double prefillOverlapWeight) {
    this.prefillOverlapWeight = prefillOverlapWeight;
  }

  public Double getDecodeOverlapWeight() {
    return decodeOverlapWeight;
  }

  public void setDecodeOverlapWeight(Double decodeOverlapWeight) {
    this.decodeOverlapWeight = decodeOverlapWeight;
  }

  public TokenizerSpec getTokenizer() {
    return tokenizer;
  }

  public void setTokenizer(TokenizerSpec tokenizer) {
    this.tokenizer = tokenizer;
  }

  public ComputeResources getResources() {
    return resources;
  }

  public void setResources(ComputeResources resources) {
    this.resources = resources;
  }

  public RouterIndexSpec getIndex() {
    return index;
  }

  public void setIndex(RouterIndexSpec index) {
    this.index = index;
  }
}
