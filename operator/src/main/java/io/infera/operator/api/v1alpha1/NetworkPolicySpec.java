package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import java.util.Map;

/**
 * The deployment's NetworkPolicies (docs/operations.md, "Network policies"): on by default, off for
 * clusters whose network plugin enforces none. Peers are given by labels (a selector's {@code
 * matchLabels}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NetworkPolicySpec {

  @Default("true")
  @JsonPropertyDescription(
      "Whether the operator writes the NetworkPolicies. Turn off only where nothing enforces them"
          + " or another tool owns the namespace's policies.")
  private Boolean enabled = true;

  @JsonPropertyDescription(
      "Who may scrape the metrics ports (the routers' admin port, engines, relays, NATS"
          + " monitoring). Unset: nobody outside the deployment.")
  private ScraperSpec scraper;

  @JsonPropertyDescription(
      "Labels of the operator's pods, the only peer of the routers' admin port. Default:"
          + " app.kubernetes.io/name: infera-operator.")
  private Map<String, String> operatorPodLabels;

  @JsonPropertyDescription(
      "Labels of the namespace the operator runs in, e.g. kubernetes.io/metadata.name:"
          + " infera-system. Default: any namespace.")
  private Map<String, String> operatorNamespaceLabels;

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public ScraperSpec getScraper() {
    return scraper;
  }

  public void setScraper(ScraperSpec scraper) {
    this.scraper = scraper;
  }

  public Map<String, String> getOperatorPodLabels() {
    return operatorPodLabels;
  }

  public void setOperatorPodLabels(Map<String, String> operatorPodLabels) {
    this.operatorPodLabels = operatorPodLabels;
  }

  public Map<String, String> getOperatorNamespaceLabels() {
    return operatorNamespaceLabels;
  }

  public void setOperatorNamespaceLabels(Map<String, String> operatorNamespaceLabels) {
    this.operatorNamespaceLabels = operatorNamespaceLabels;
  }

  /** A metrics scraper (Prometheus): the pods and namespaces it runs in. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class ScraperSpec {

    @JsonPropertyDescription(
        "Labels of the scraper's namespace, e.g. kubernetes.io/metadata.name: monitoring. Unset:"
            + " the deployment's namespace.")
    private Map<String, String> namespaceLabels;

    @JsonPropertyDescription(
        "Labels of the scraper's pods, e.g. app.kubernetes.io/name: prometheus. Unset: every pod"
            + " of that namespace.")
    private Map<String, String> podLabels;

    public Map<String, String> getNamespaceLabels() {
      return namespaceLabels;
    }

    public void setNamespaceLabels(Map<String, String> namespaceLabels) {
      this.namespaceLabels = namespaceLabels;
    }

    public Map<String, String> getPodLabels() {
      return podLabels;
    }

    public void setPodLabels(Map<String, String> podLabels) {
      this.podLabels = podLabels;
    }
  }
}
