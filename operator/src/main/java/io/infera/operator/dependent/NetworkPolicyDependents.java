package io.infera.operator.dependent;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.GarbageCollected;
import io.javaoperatorsdk.operator.processing.dependent.CRUDKubernetesBulkDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.KubernetesBulkDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The deployment's NetworkPolicies (router, each pool, NATS). A bulk dependent: a removed pool's
 * policy is deleted, and so is every policy when {@code spec.networkPolicy.enabled} turns false.
 */
public final class NetworkPolicyDependents {

  private NetworkPolicyDependents() {}

  /** Owns the deployment's policies; its informer watches only the operator's labelled ones. */
  @KubernetesDependent(informer = @Informer(labelSelector = DesiredChildren.MANAGED_SELECTOR))
  public static final class PoliciesDependent
      extends KubernetesDependentResource<NetworkPolicy, InferaDeployment>
      implements CRUDKubernetesBulkDependentResource<NetworkPolicy, InferaDeployment>,
          KubernetesBulkDependentResource<NetworkPolicy, InferaDeployment>,
          GarbageCollected<InferaDeployment> {

    public PoliciesDependent() {
      super(NetworkPolicy.class);
    }

    @Override
    public Map<ResourceID, NetworkPolicy> desiredResources(
        InferaDeployment primary, Context<InferaDeployment> context) {
      Map<ResourceID, NetworkPolicy> out = new LinkedHashMap<>();
      for (NetworkPolicy np : DesiredChildren.of(primary, context).networkPolicies().values()) {
        out.put(ResourceID.fromResource(np), DesiredChildren.mutableMetadata(np));
      }
      return out;
    }
  }
}
