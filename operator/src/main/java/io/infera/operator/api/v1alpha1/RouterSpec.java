package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * The router Deployment and the policy it is configured with. The routing features added after a
 * release have no schema default: unset, their RouterConfig keys are left out and the router's
 * defaults apply (docs/contracts.md, "Version skew").
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = Rules.DECODE_INPUT_DEMAND_KV_AWARE,
    message = Rules.DECODE_INPUT_DEMAND_KV_AWARE_MESSAGE)
@ValidationRule(
    value = Rules.DECODE_REQUEST_WEIGHT_NEEDS_DEMAND,
    message = Rules.DECODE_REQUEST_WEIGHT_NEEDS_DEMAND_MESSAGE)
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
      "Decode input-demand routing on prefill/decode fleets (RouterConfig"
          + " policy.decodeInputDemand; kv-aware only): off, shadow (the picks of off, plus the"
          + " demand bookkeeping, a suggested target and its metrics) or on (each decode half goes"
          + " to the decode worker or rank with the lowest projected input demand). Default: off."
          + " Quote \"on\" and \"off\" in YAML (bare, they are booleans).")
  private DecodeInputDemand decodeInputDemand;

  @Min(0)
  @Max(Rules.MAX_DECODE_REQUEST_WEIGHT)
  @JsonPropertyDescription(
      "Tokens each in-flight request adds to a decode target's demand cost (RouterConfig"
          + " policy.decodeRequestWeight). Above 0 it needs decodeInputDemand shadow or on."
          + " Default: 0.")
  private Double decodeRequestWeight;

  @JsonPropertyDescription(
      "When a prefill/decode pair's prefill booking is released (RouterConfig"
          + " policy.prefillGuardRelease): decode (when the decode half ends) or completion (when"
          + " the prefill answer completes). Default: decode.")
  private PrefillGuardRelease prefillGuardRelease;

  @JsonPropertyDescription(
      "Session affinity (RouterConfig policy.sessionAffinity): keep a session's requests on the"
          + " workers that served it, keyed by a header or the body's prompt_cache_key. Default:"
          + " off.")
  private SessionAffinitySpec sessionAffinity;

  @JsonPropertyDescription(
      "Image affinity of multimodal requests (RouterConfig policy.multimodal): its memory per"
          + " worker.")
  private MultimodalSpec multimodal;

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

  public DecodeInputDemand getDecodeInputDemand() {
    return decodeInputDemand;
  }

  public void setDecodeInputDemand(DecodeInputDemand decodeInputDemand) {
    this.decodeInputDemand = decodeInputDemand;
  }

  public Double getDecodeRequestWeight() {
    return decodeRequestWeight;
  }

  public void setDecodeRequestWeight(Double decodeRequestWeight) {
    this.decodeRequestWeight = decodeRequestWeight;
  }

  public PrefillGuardRelease getPrefillGuardRelease() {
    return prefillGuardRelease;
  }

  public void setPrefillGuardRelease(PrefillGuardRelease prefillGuardRelease) {
    this.prefillGuardRelease = prefillGuardRelease;
  }

  public SessionAffinitySpec getSessionAffinity() {
    return sessionAffinity;
  }

  public void setSessionAffinity(SessionAffinitySpec sessionAffinity) {
    this.sessionAffinity = sessionAffinity;
  }

  public MultimodalSpec getMultimodal() {
    return multimodal;
  }

  public void setMultimodal(MultimodalSpec multimodal) {
    this.multimodal = multimodal;
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
