package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * How routers and relays authenticate to an external NATS: a user with a password from a Secret, or
 * a NATS credentials file from a Secret. The operator's own NATS needs none: it generates its
 * credentials.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = Rules.NATS_AUTH_ONE_KIND, message = Rules.NATS_AUTH_ONE_KIND_MESSAGE)
public class NatsAuthSpec {

  @Size(max = 256)
  @Pattern(Rules.NATS_USER_PATTERN)
  @JsonPropertyDescription("NATS user name, with passwordSecret.")
  private String user;

  @JsonPropertyDescription("The user's password: a Secret key (default key: password).")
  private SecretKeyRef passwordSecret;

  @JsonPropertyDescription(
      "A NATS credentials file (JWT and NKEY seed) instead of a user: a Secret key (default key:"
          + " creds).")
  private SecretKeyRef credsSecret;

  public String getUser() {
    return user;
  }

  public void setUser(String user) {
    this.user = user;
  }

  public SecretKeyRef getPasswordSecret() {
    return passwordSecret;
  }

  public void setPasswordSecret(SecretKeyRef passwordSecret) {
    this.passwordSecret = passwordSecret;
  }

  public SecretKeyRef getCredsSecret() {
    return credsSecret;
  }

  public void setCredsSecret(SecretKeyRef credsSecret) {
    this.credsSecret = credsSecret;
  }
}
