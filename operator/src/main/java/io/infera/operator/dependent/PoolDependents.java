package io.infera.operator.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.desired.Fleet;
import io.infera.operator.desired.Labels;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.GarbageCollected;
import io.javaoperatorsdk.operator.processing.dependent.CRUDKubernetesBulkDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.KubernetesBulkDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.function.Predicate;

/**
 * One Deployment and one headless Service per pool ({@code <idep>-<pool>}). Bulk dependents: a pool
 * removed from the spec has its objects deleted.
 */
public final class PoolDependents {

  private PoolDependents() {}

  private abstract static class PoolChildren<R extends HasMetadata>
      extends KubernetesDependentResource<R, InferaDeployment>
      implements CRUDKubernetesBulkDependentResource<R, InferaDeployment>,
          KubernetesBulkDependentResource<R, InferaDeployment>,
          GarbageCollected<InferaDeployment> {

    PoolChildren(Class<R> type) {
      super(type);
    }

    protected abstract SortedMap<String, R> pick(Fleet fleet);

    @Override
    public Map<ResourceID, R> desiredResources(
        InferaDeployment primary, Context<InferaDeployment> context) {
      Map<ResourceID, R> out = new LinkedHashMap<>();
      for (R r : pick(DesiredChildren.of(primary, context)).values()) {
        out.put(ResourceID.fromResource(r), DesiredChildren.mutableMetadata(r));
      }
      return out;
    }

    /** Pool objects only: the shared informers also hold the router's and NATS' objects. */
    @Override
    public Predicate<R> secondaryResourceFilter(
        InferaDeployment primary, Context<InferaDeployment> context) {
      return r -> {
        Map<String, String> labels = r.getMetadata().getLabels();
        return labels != null
            && Labels.COMPONENT_WORKER.equals(labels.get(Labels.COMPONENT))
            && primary.getMetadata().getName().equals(labels.get(Labels.DEPLOYMENT));
      };
    }
  }

  /** Uses the shared Deployment informer ({@link DesiredChildren#DEPLOYMENTS}). */
  public static final class DeploymentsDependent extends PoolChildren<Deployment> {
    public DeploymentsDependent() {
      super(Deployment.class);
    }

    @Override
    protected SortedMap<String, Deployment> pick(Fleet fleet) {
      return fleet.poolDeployments();
    }
  }

  /** Uses the shared Service informer ({@link DesiredChildren#SERVICES}). */
  public static final class ServicesDependent extends PoolChildren<Service> {
    public ServicesDependent() {
      super(Service.class);
    }

    @Override
    protected SortedMap<String, Service> pick(Fleet fleet) {
      return fleet.poolServices();
    }
  }
}
