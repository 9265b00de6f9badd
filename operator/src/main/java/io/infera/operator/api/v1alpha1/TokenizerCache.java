package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** A PersistentVolumeClaim holding a Hugging Face cache, mounted read-only into the routers. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = Rules.SUB_PATH_RELATIVE, message = Rules.SUB_PATH_RELATIVE_MESSAGE)
public class TokenizerCache {

  @Required
  @Size(max = 253)
  @Pattern(Rules.DNS_1123_SUBDOMAIN_PATTERN)
  @JsonPropertyDescription(
      "PersistentVolumeClaim in the resource's namespace whose files are a Hugging Face cache"
          + " (HF_HOME: hub/models--ORG--NAME/snapshots/COMMIT/tokenizer.json and"
          + " hub/models--ORG--NAME/refs/REVISION). Mounted read-only at /hf; a claim the engine"
          + " pods also mount (ReadOnlyMany or ReadWriteMany) serves both.")
  private String claimName;

  @Size(max = 1024)
  @JsonPropertyDescription(
      "Directory inside the claim that holds the cache (the one containing hub/). Default: the"
          + " claim's root.")
  private String subPath;

  public String getClaimName() {
    return claimName;
  }

  public void setClaimName(String claimName) {
    this.claimName = claimName;
  }

  public String getSubPath() {
    return subPath;
  }

  public void setSubPath(String subPath) {
    this.subPath = subPath;
  }
}
