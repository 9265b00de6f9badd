package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** One key of a Secret in the resource's namespace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SecretKeyRef {

  /** The key read when none is given. */
  public static final String DEFAULT_KEY = "token";

  @Required
  @Size(max = 253)
  @Pattern(Rules.DNS_1123_SUBDOMAIN_PATTERN)
  @JsonPropertyDescription("Name of the Secret.")
  private String name;

  @Size(max = 253)
  @Pattern(Rules.SECRET_KEY_PATTERN)
  @JsonPropertyDescription("Key in the Secret. Default: token.")
  private String key;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getKey() {
    return key;
  }

  public void setKey(String key) {
    this.key = key;
  }
}
