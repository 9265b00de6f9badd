package io.infera.operator.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.desired.Fleet;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.ResourceID;

/**
 * A single child whose desired state is one object of the {@link Fleet}. Owned (garbage-collected
 * with the InferaDeployment); created and updated, never deleted except by a failed precondition.
 */
abstract class FleetDependent<R extends HasMetadata>
    extends CRUDKubernetesDependentResource<R, InferaDeployment> {

  FleetDependent(Class<R> type) {
    super(type);
  }

  /** This dependent's object in {@code fleet}. */
  protected abstract R pick(Fleet fleet);

  /** The object's name, without building the fleet (also when the object is not desired). */
  protected abstract String name(InferaDeployment primary);

  @Override
  protected R desired(InferaDeployment primary, Context<InferaDeployment> context) {
    return DesiredChildren.mutableMetadata(pick(DesiredChildren.of(primary, context)));
  }

  @Override
  protected ResourceID targetSecondaryResourceID(
      InferaDeployment primary, Context<InferaDeployment> context) {
    return new ResourceID(name(primary), primary.getMetadata().getNamespace());
  }
}
