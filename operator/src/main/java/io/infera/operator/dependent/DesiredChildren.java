package io.infera.operator.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.desired.DesiredFleet;
import io.infera.operator.desired.Fleet;
import io.infera.operator.desired.Labels;
import io.infera.operator.desired.RenderInputs;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.LinkedHashMap;

/**
 * The desired children of one reconciliation, built once by the reconciler (after validation) and
 * shared by every dependent through the JOSDK context.
 */
public final class DesiredChildren {

  /** Name of the shared Deployment informer (router and pools). */
  public static final String DEPLOYMENTS = "deployments";

  /** Name of the shared Service informer (router, NATS and pools). */
  public static final String SERVICES = "services";

  /** Name of the shared ConfigMap informer (router and NATS). */
  public static final String CONFIGMAPS = "configmaps";

  /** Informers watch only what the operator labels as its own. */
  public static final String MANAGED_SELECTOR = Labels.MANAGED_BY + "=" + Labels.MANAGED_BY_VALUE;

  private static final String KEY = "io.infera.operator.fleet";

  private DesiredChildren() {}

  /** Stores {@code fleet} for the dependents of this reconciliation. */
  public static void put(Context<InferaDeployment> context, Fleet fleet) {
    context.managedWorkflowAndDependentResourceContext().put(KEY, fleet);
  }

  /**
   * The fleet the reconciler stored, or (a dependent called outside the reconciler's flow) one
   * built from the primary, which the reconciler has validated.
   */
  public static Fleet of(InferaDeployment primary, Context<InferaDeployment> context) {
    return context
        .managedWorkflowAndDependentResourceContext()
        .get(KEY, Fleet.class)
        .orElseGet(() -> DesiredFleet.fleet(RenderInputs.of(primary)));
  }

  /**
   * JOSDK adds its own annotations and owner reference to a desired object: give it mutable labels
   * and annotations (builders may leave them null or immutable).
   */
  static <R extends HasMetadata> R mutableMetadata(R object) {
    ObjectMeta m = object.getMetadata();
    m.setLabels(m.getLabels() == null ? new LinkedHashMap<>() : new LinkedHashMap<>(m.getLabels()));
    m.setAnnotations(
        m.getAnnotations() == null
            ? new LinkedHashMap<>()
            : new LinkedHashMap<>(m.getAnnotations()));
    return object;
  }
}
