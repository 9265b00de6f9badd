package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** The router's tokenizer source (RouterConfig {@code tokenizer}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = Rules.TOKENIZER_ONE_SOURCE, message = Rules.TOKENIZER_ONE_SOURCE_MESSAGE)
@ValidationRule(
    value = Rules.TOKENIZER_LOCAL_NEEDS_SOURCE,
    message = Rules.TOKENIZER_LOCAL_NEEDS_SOURCE_MESSAGE)
@ValidationRule(
    value = Rules.TOKENIZER_ONE_HUB_SOURCE,
    message = Rules.TOKENIZER_ONE_HUB_SOURCE_MESSAGE)
@ValidationRule(
    value = Rules.TOKENIZER_HUB_OPTIONS_NEED_HUB,
    message = Rules.TOKENIZER_HUB_OPTIONS_NEED_HUB_MESSAGE)
public class TokenizerSpec {

  @JsonPropertyDescription(
      "A directory with tokenizer.json (+ tokenizer_config.json) or a tokenizer.json inside the"
          + " router image, or builtin:qwen3.")
  private String path;

  @Size(max = 193)
  @Pattern(Rules.HUB_ID_PATTERN)
  @JsonPropertyDescription(
      "A Hugging Face hub id (ORG/NAME) whose tokenizer the routers load from a Hugging Face cache:"
          + " the volume of cache, or what download fetched. Neither set: download (no token).")
  private String hub;

  @Size(max = Rules.MAX_REVISION_LENGTH)
  @Pattern(Rules.REVISION_PATTERN)
  @JsonPropertyDescription(
      "Branch, tag or commit of hub (RouterConfig tokenizer.revision). Default: main.")
  private String revision;

  @JsonPropertyDescription(
      "A PersistentVolumeClaim holding a Hugging Face cache with hub's tokenizer, mounted"
          + " read-only into the routers (HF_HOME=/hf).")
  private TokenizerCache cache;

  @JsonPropertyDescription(
      "Download hub's tokenizer files in an init container (the router image's fetch-tokenizer)"
          + " into an emptyDir, with an optional token Secret. The default for hub when cache is"
          + " not set.")
  private TokenizerDownload download;

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

  public String getRevision() {
    return revision;
  }

  public void setRevision(String revision) {
    this.revision = revision;
  }

  public TokenizerCache getCache() {
    return cache;
  }

  public void setCache(TokenizerCache cache) {
    this.cache = cache;
  }

  public TokenizerDownload getDownload() {
    return download;
  }

  public void setDownload(TokenizerDownload download) {
    this.download = download;
  }

  public TokenizerMode getMode() {
    return mode;
  }

  public void setMode(TokenizerMode mode) {
    this.mode = mode;
  }
}
