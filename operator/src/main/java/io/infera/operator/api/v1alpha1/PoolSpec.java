package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A group of identical engine workers: one Deployment and one headless Service. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = Rules.KV_TRANSFER_ROLE_FITS_POOL_ROLE,
    message = Rules.KV_TRANSFER_ROLE_FITS_POOL_ROLE_MESSAGE)
@ValidationRule(
    value = Rules.DECODE_RADIX_CACHE_ON_DECODE,
    message = Rules.DECODE_RADIX_CACHE_ON_DECODE_MESSAGE)
public class PoolSpec {

  @Required
  @Size(min = 1, max = Rules.MAX_POOL_NAME_LENGTH)
  @Pattern(Rules.POOL_NAME_PATTERN)
  @JsonPropertyDescription(
      "Pool name (a DNS label, unique in the deployment); its objects are <deployment>-<name>.")
  private String name;

  @Default("mixed")
  @JsonPropertyDescription("mixed (whole requests), prefill or decode (disaggregated serving).")
  private PoolRole role = PoolRole.MIXED;

  @Default("1")
  @Min(0)
  @JsonPropertyDescription("Number of workers (pods) in the pool.")
  private Integer replicas = 1;

  @JsonPropertyDescription("Engine image of this pool (default: spec.image, then the pinned one).")
  private String image;

  @Default("1")
  @Min(1)
  @Max(Rules.MAX_DATA_PARALLEL_SIZE)
  @JsonPropertyDescription(
      "Data-parallel ranks in each worker (vLLM --data-parallel-size, SGLang --dp-size; the"
          + " simulator's --dp-size). Each rank publishes its own KV events (PUB port 5557 + rank,"
          + " replay port 5657 + rank), which the relay and the router follow; 1..32. A"
          + " worker with GPUs (resources.gpu > 0) needs at least one per rank.")
  private Integer dataParallelSize = 1;

  @JsonPropertyDescription(
      "vLLM prefill/decode pools: the NixlConnector kv_role in --kv-transfer-config. Default:"
          + " kv_producer on prefill pools, kv_consumer on decode pools (what vLLM documents;"
          + " kv_both is deprecated for NixlConnector). A prefill pool must produce KV, a decode"
          + " pool consume it.")
  private KvTransferRole kvTransferRole;

  @JsonPropertyDescription(
      "SGLang decode pools: --disaggregation-decode-enable-radix-cache (default true). Without"
          + " it a decode worker keeps no prefix cache, publishes no KV events and the router's"
          + " decode overlap weight has nothing to act on; false leaves it off.")
  private Boolean decodeRadixCache;

  @Default("{}")
  @JsonPropertyDescription("GPUs, CPU, memory and shared memory of each engine container.")
  private PoolResources resources = new PoolResources();

  @JsonPropertyDescription(
      "Extra engine arguments, appended after the ones the operator derives. Arguments that"
          + " contradict a derived flag (--block-size, --page-size, --kv-events-config, --port,"
          + " --disaggregation-mode, --data-parallel-size, --kv-transfer-config, disabling prefix"
          + " caching, ...) are refused.")
  private List<String> args = new ArrayList<>();

  @JsonPropertyDescription(
      "Extra environment variables of the engine container (PYTHONHASHSEED comes from"
          + " spec.pythonHashSeed).")
  private List<EnvVar> env = new ArrayList<>();

  @JsonPropertyDescription("Node labels the pool's pods must match.")
  private Map<String, String> nodeSelector = new LinkedHashMap<>();

  @JsonPropertyDescription("Tolerations of the pool's pods (e.g. for tainted GPU nodes).")
  private List<Toleration> tolerations = new ArrayList<>();

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

  public String getImage() {
    return image;
  }

  public void setImage(String image) {
    this.image = image;
  }

  public Integer getDataParallelSize() {
    return dataParallelSize;
  }

  public void setDataParallelSize(Integer dataParallelSize) {
    this.dataParallelSize = dataParallelSize;
  }

  public KvTransferRole getKvTransferRole() {
    return kvTransferRole;
  }

  public void setKvTransferRole(KvTransferRole kvTransferRole) {
    this.kvTransferRole = kvTransferRole;
  }

  public Boolean getDecodeRadixCache() {
    return decodeRadixCache;
  }

  public void setDecodeRadixCache(Boolean decodeRadixCache) {
    this.decodeRadixCache = decodeRadixCache;
  }

  public PoolResources getResources() {
    return resources;
  }

  public void setResources(PoolResources resources) {
    this.resources = resources;
  }

  public List<String> getArgs() {
    return args;
  }

  public void setArgs(List<String> args) {
    this.args = args;
  }

  public List<EnvVar> getEnv() {
    return env;
  }

  public void setEnv(List<EnvVar> env) {
    this.env = env;
  }

  public Map<String, String> getNodeSelector() {
    return nodeSelector;
  }

  public void setNodeSelector(Map<String, String> nodeSelector) {
    this.nodeSelector = nodeSelector;
  }

  public List<Toleration> getTolerations() {
    return tolerations;
  }

  public void setTolerations(List<Toleration> tolerations) {
    this.tolerations = tolerations;
  }
}
