package io.infera.operator.reconciler;

import io.infera.operator.api.v1alpha1.InferaDeployment;

/** Kubernetes Events about an InferaDeployment (what {@code kubectl describe idep} shows). */
public interface EventRecorder {

  /**
   * Records a Warning event. Best effort: a failure is logged, never thrown (the status carries the
   * same information).
   *
   * @param reason CamelCase, e.g. InvalidSpec
   */
  void warning(InferaDeployment about, String reason, String message);
}
