package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/**
 * TLS to an external NATS: the CA its certificate chains to, and an optional client certificate.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NatsTlsSpec {

  @Required
  @JsonPropertyDescription(
      "PEM CA certificates of the NATS server: a Secret key (default key: ca.crt). Set, routers"
          + " and relays require TLS.")
  private SecretKeyRef caSecret;

  @Size(max = 253)
  @Pattern(Rules.DNS_1123_SUBDOMAIN_PATTERN)
  @JsonPropertyDescription(
      "A kubernetes.io/tls Secret (tls.crt, and tls.key in PKCS#8 PEM) routers and relays present"
          + " as their client certificate. Optional.")
  private String clientCertSecret;

  public SecretKeyRef getCaSecret() {
    return caSecret;
  }

  public void setCaSecret(SecretKeyRef caSecret) {
    this.caSecret = caSecret;
  }

  public String getClientCertSecret() {
    return clientCertSecret;
  }

  public void setClientCertSecret(String clientCertSecret) {
    this.clientCertSecret = clientCertSecret;
  }
}
