package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;

/** The router's tokenizer source (RouterConfig {@code tokenizer}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = Rules.TOKENIZER_ONE_SOURCE, message = Rules.TOKENIZER_ONE_SOURCE_MESSAGE)
@ValidationRule(
    value = Rules.TOKENIZER_LOCAL_NEEDS_SOURCE,
    message = Rules.TOKENIZER_LOCAL_NEEDS_SOURCE_MESSAGE)
public class TokenizerSpec {

  @JsonPropertyDescription(
      "A directory with tokenizer.json (+ tokenizer_config.json) or a tokenizer.json inside the"
          + " router image, or builtin:qwen3.")
  private String path;

  @JsonPropertyDescription("A Hugging Face hub id resolved in the router's local cache.")
  private String hub;

  @JsonPropertyDescription(
      "local (the router's own tokenizer from path or hub) or engine (a worker's /tokenize)."
          + " Default: local when path or hub is set, else engine.")
  private TokenizerMode mode;

  public String getPath() {
    return path;
  }

  public void setPath(String path) {
    this.path = path;
  }

  public String getHub() {
    return hub;
  }

  public void setHub(String hub) {
    this.hub = hub;
  }

  public TokenizerMode getMode() {
    return mode;
  }

  public void setMode(TokenizerMode mode) {
    this.mode = mode;
  }
}
