package io.infera.operator.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/** One LLM serving fleet: engine pools, a NATS event plane and KV-cache-aware routers. */
@Group(InferaDeployment.GROUP)
@Version(InferaDeployment.VERSION)
@Kind(InferaDeployment.KIND)
@Plural("inferadeployments")
@Singular("inferadeployment")
@ShortNames("idep")
@AdditionalPrinterColumn(
    name = "PHASE",
    jsonPath = ".status.phase",
    getDescription = "Pending, Progressing, Ready or Degraded.")
@AdditionalPrinterColumn(
    name = "ROUTERS",
    jsonPath = ".status.routersSummary",
    getDescription = "Ready/desired router replicas.")
@AdditionalPrinterColumn(
    name = "WORKERS",
    jsonPath = ".status.workersSummary",
    getDescription = "Ready/desired workers over all pools.")
@AdditionalPrinterColumn(
    name = "HIT%",
    jsonPath = ".status.hitPercent",
    getDescription = "Prefix-cache hit ratio seen by the routers.")
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class InferaDeployment extends CustomResource<InferaDeploymentSpec, InferaDeploymentStatus>
    implements Namespaced {

  public static final String GROUP = "infera.io";
  public static final String VERSION = "v1alpha1";
  public static final String KIND = "InferaDeployment";
  public static final String API_VERSION = GROUP + "/" + VERSION;

  @Override
  protected InferaDeploymentSpec initSpec() {
    return new InferaDeploymentSpec();
  }

  /**
   * No status until the operator writes one: an empty status object that the server does not have
   * would make JSON patches of the status address fields under a missing {@code /status}.
   */
  @Override
  protected InferaDeploymentStatus initStatus() {
    return null;
  }
}
