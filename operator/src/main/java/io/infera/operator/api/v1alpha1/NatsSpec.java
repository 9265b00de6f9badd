package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * The KV-event plane (docs/contracts.md, "NATS event plane"): an operator-deployed or external NATS
 * JetStream.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = Rules.NATS_URL_OR_DEPLOY, message = Rules.NATS_URL_OR_DEPLOY_MESSAGE)
@ValidationRule(value = Rules.NATS_EXTERNAL_ONLY, message = Rules.NATS_EXTERNAL_ONLY_MESSAGE)
public class NatsSpec {

  @Pattern(Rules.NATS_URL_PATTERN)
  @JsonPropertyDescription(
      "URL of an external NATS server with JetStream (nats://host:4222); when set, the operator"
          + " deploys no NATS.")
  private String url;

  @JsonPropertyDescription(
      "The NATS StatefulSet the operator deploys when no url is given (all fields optional).")
  private NatsDeploySpec deploy;

  @JsonPropertyDescription(
      "Credentials routers and relays use on the external NATS (url). The operator's own NATS"
          + " needs none: it generates per-role credentials into the Secret <name>-nats-auth.")
  private NatsAuthSpec auth;

  @JsonPropertyDescription("TLS to the external NATS (url).")
  private NatsTlsSpec tls;

  @Default("INFERA_KV_EVENTS")
  @Pattern(Rules.NATS_NAME_PATTERN)
  @JsonPropertyDescription("JetStream stream of KV events.")
  private String stream = "INFERA_KV_EVENTS";

  @Default("infera.kv.events")
  @Pattern(Rules.SUBJECT_PREFIX_PATTERN)
  @JsonPropertyDescription("Subject prefix of KV events: <prefix>.<pool>.<worker>.<rank>.")
  private String subjectPrefix = "infera.kv.events";

  @Default("infera_kv_snapshots")
  @Pattern(Rules.NATS_NAME_PATTERN)
  @JsonPropertyDescription("JetStream KV bucket of per-worker cache-view snapshots.")
  private String snapshotBucket = "infera_kv_snapshots";

  public String getUrl() {
    return url;
  }

  public void setUrl(String url) {
    this.url = url;
  }

  public NatsDeploySpec getDeploy() {
    return deploy;
  }

  public void setDeploy(NatsDeploySpec deploy) {
    this.deploy = deploy;
  }

  public NatsAuthSpec getAuth() {
    return auth;
  }

  public void setAuth(NatsAuthSpec auth) {
    this.auth = auth;
  }

  public NatsTlsSpec getTls() {
    return tls;
  }

  public void setTls(NatsTlsSpec tls) {
    this.tls = tls;
  }

  public String getStream() {
    return stream;
  }

  public void setStream(String stream) {
    this.stream = stream;
  }

  public String getSubjectPrefix() {
    return subjectPrefix;
  }

  public void setSubjectPrefix(String subjectPrefix) {
    this.subjectPrefix = subjectPrefix;
  }

  public String getSnapshotBucket() {
    return snapshotBucket;
  }

  public void setSnapshotBucket(String snapshotBucket) {
    this.snapshotBucket = snapshotBucket;
  }
}
