package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/** The router's KV index (RouterConfig {@code index}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RouterIndexSpec {

  @Min(1)
  @Max(Rules.MAX_INDEX_BLOCKS)
  @JsonPropertyDescription(
      "Cap on the blocks the router's index holds over all workers (RouterConfig"
          + " index.maxBlocks). Unset: the router's own default (1800000, which 1Gi holds). Set,"
          + " the router's default memory becomes (448Mi + maxBlocks x 144 B) / 0.70 (docs/"
          + "operations.md, \"Sizing the index\").")
  private Long maxBlocks;

  public Long getMaxBlocks() {
    return maxBlocks;
  }

  public void setMaxBlocks(Long maxBlocks) {
    this.maxBlocks = maxBlocks;
  }
}
