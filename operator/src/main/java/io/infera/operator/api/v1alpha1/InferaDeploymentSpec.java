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
import java.util.ArrayList;
import java.util.List;

/** What the user asks for: one model, one engine, one page size, routers, NATS and pools. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = Rules.UNIQUE_POOL_NAMES, message = Rules.UNIQUE_POOL_NAMES_MESSAGE)
@ValidationRule(value = Rules.PREFILL_DECODE_PAIRED, message = Rules.PREFILL_DECODE_PAIRED_MESSAGE)
@ValidationRule(
    value = Rules.KV_TRANSFER_ROLE_VLLM_ONLY,
    message = Rules.KV_TRANSFER_ROLE_VLLM_ONLY_MESSAGE)
@ValidationRule(
    value = Rules.DECODE_RADIX_CACHE_SGLANG_ONLY,
    message = Rules.DECODE_RADIX_CACHE_SGLANG_ONLY_MESSAGE)
@ValidationRule(
    value = Rules.ATOM_ONE_DATA_PARALLEL_RANK,
    message = Rules.ATOM_ONE_DATA_PARALLEL_RANK_MESSAGE)
@ValidationRule(value = Rules.ATOM_LOCAL_TOKENIZER, message = Rules.ATOM_LOCAL_TOKENIZER_MESSAGE)
public class InferaDeploymentSpec {

  @Required
  @Size(min = 1, max = 256)
  @JsonPropertyDescription(
      "The model every engine serves and the router accepts (a Hugging Face id or a path in the"
          + " engine image), e.g. Qwen/Qwen3-0.6B.")
  private String model;

  @Default("vllm")
  @JsonPropertyDescription(
      "Inference engine of every pool: vllm, sglang, atom (AMD's ATOM on ROCm GPUs; pools ask"
          + " for amd.com/gpu unless resources.gpuType says otherwise), or sim (the Infera"
          + " simulator, no GPU).")
  private Engine engine = Engine.VLLM;

  @JsonPropertyDescription(
      "Engine image for every pool (a pool's own image wins). Default: the operator's pinned image"
          + " for the engine.")
  private String image;

  @Default("16")
  @Min(1)
  @Max(1024)
  @ValidationRule(
      value = Rules.PAGE_SIZE_POWER_OF_TWO,
      message = Rules.PAGE_SIZE_POWER_OF_TWO_MESSAGE)
  @JsonPropertyDescription(
      "KV-cache block size in tokens given to every engine (vLLM --block-size, SGLang"
          + " --page-size), every relay and the router. A power of two, 1..1024. Some attention"
          + " backends force another size whatever is asked: SGLang's flashmla 64, trtllm_mla and"
          + " cutedsl_mla 64 unless 32 or 64 (trtllm_mla is SGLang's default for DeepSeek V3/R1"
          + " on Blackwell), DeepSeek-V4 256, DSA models 64 x index pool; vLLM keeps an explicit"
          + " --block-size on GPUs but raises it for hybrid attention/Mamba models (MLA hybrids: a"
          + " multiple of 128) and on CPU (CPU MLA 16). The operator cannot tell the backend from"
          + " the model name: the router then learns each worker's size from its KV events and"
          + " EventsFlowing reports BlockSizeOverridden. Set pageSize to the forced size to hash"
          + " every request once.")
  private Integer pageSize = 16;

  @Pattern(Rules.PYTHON_HASH_SEED_PATTERN)
  @ValidationRule(
      value = Rules.PYTHON_HASH_SEED_RANGE,
      message = Rules.PYTHON_HASH_SEED_RANGE_MESSAGE)
  @JsonPropertyDescription(
      "PYTHONHASHSEED of every engine container: an integer, or 'random'. Unset (recommended),"
          + " the operator generates one per deployment, once, into the Secret <name>-infera"
          + " (key pythonHashSeed) and every pool reads it from there: one value across the fleet"
          + " and across restarts that nobody else knows. A value set here is visible to anyone"
          + " who can read the resource, which makes vLLM's prefix-cache hashes predictable.")
  private String pythonHashSeed;

  @Default("{}")
  @JsonPropertyDescription("The router replicas and their policy.")
  private RouterSpec router = new RouterSpec();

  @Default("{}")
  @JsonPropertyDescription(
      "The NetworkPolicies the operator writes for this deployment: every flow its pods need and"
          + " nothing else.")
  private NetworkPolicySpec networkPolicy = new NetworkPolicySpec();

  @Default("{}")
  @JsonPropertyDescription(
      "The NATS JetStream server carrying KV-cache events: deployed by the operator, or external.")
  private NatsSpec nats = new NatsSpec();

  @Required
  @Size(min = 1, max = Rules.MAX_POOLS)
  @JsonPropertyDescription(
      "Engine worker pools. Pool names are unique; a prefill pool needs a decode pool and vice"
          + " versa.")
  private List<PoolSpec> pools = new ArrayList<>();

  public String getModel() {
    return model;
  }

  public void setModel(String model) {
    this.model = model;
  }

  public Engine getEngine() {
    return engine;
  }

  public void setEngine(Engine engine) {
    this.engine = engine;
  }

  public String getImage() {
    return image;
  }

  public void setImage(String image) {
    this.image = image;
  }

  public Integer getPageSize() {
    return pageSize;
  }

  public void setPageSize(Integer pageSize) {
    this.pageSize = pageSize;
  }

  public String getPythonHashSeed() {
    return pythonHashSeed;
  }

  public void setPythonHashSeed(String pythonHashSeed) {
    this.pythonHashSeed = pythonHashSeed;
  }

  public NetworkPolicySpec getNetworkPolicy() {
    return networkPolicy;
  }

  public void setNetworkPolicy(NetworkPolicySpec networkPolicy) {
    this.networkPolicy = networkPolicy;
  }

  public RouterSpec getRouter() {
    return router;
  }

  public void setRouter(RouterSpec router) {
    this.router = router;
  }

  public NatsSpec getNats() {
    return nats;
  }

  public void setNats(NatsSpec nats) {
    this.nats = nats;
  }

  public List<PoolSpec> getPools() {
    return pools;
  }

  public void setPools(List<PoolSpec> pools) {
    this.pools = pools;
  }
}
