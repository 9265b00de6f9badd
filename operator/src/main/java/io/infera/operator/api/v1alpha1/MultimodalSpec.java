package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/**
 * Image affinity of multimodal requests (RouterConfig {@code policy.multimodal.*}; docs/routing.md,
 * "Multimodal requests"). Unset leaves the key out: the router's default applies.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MultimodalSpec {

  @Min(1)
  @Max(Rules.MAX_MULTIMODAL_AFFINITY_ENTRIES)
  @JsonPropertyDescription(
      "Image keys each router remembers per worker for image affinity (a bounded LRU);"
          + " RouterConfig policy.multimodal.affinityEntries. Default: 1024.")
  private Integer affinityEntries;

  public Integer getAffinityEntries() {
    return affinityEntries;
  }

  public void setAffinityEntries(Integer affinityEntries) {
    this.affinityEntries = affinityEntries;
  }
}
