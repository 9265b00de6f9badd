package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;

/**
 * An init container (the router image's {@code fetch-tokenizer}) that downloads the tokenizer files
 * from the hub into an emptyDir before the router starts.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TokenizerDownload {

  @JsonPropertyDescription(
      "Secret holding a Hugging Face token (passed as HF_TOKEN), for gated or private models."
          + " Default: none (public models).")
  private SecretKeyRef tokenSecret;

  @Size(max = 2048)
  @Pattern(Rules.HUB_ENDPOINT_PATTERN)
  @JsonPropertyDescription(
      "Base URL of the hub or a mirror (HF_ENDPOINT). Default: https://huggingface.co.")
  private String endpoint;

  public SecretKeyRef getTokenSecret() {
    return tokenSecret;
  }

  public void setTokenSecret(SecretKeyRef tokenSecret) {
    this.tokenSecret = tokenSecret;
  }

  public String getEndpoint() {
    return endpoint;
  }

  public void setEndpoint(String endpoint) {
    this.endpoint = endpoint;
  }
}
