package io.infera.operator.dependent;

import io.fabric8.kubernetes.api.model.Secret;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.desired.GeneratedSecret;
import io.infera.operator.desired.Names;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.security.SecureRandom;
import java.util.Map;

/**
 * The generated Secret {@code <idep>-infera} ({@link GeneratedSecret}). Its desired state is the
 * stored Secret's values plus new ones for missing keys, so once created it is never rewritten: not
 * on resync, not after an operator restart (the informer holds the stored Secret before the first
 * reconciliation). Owned by the InferaDeployment, deleted with it.
 */
@KubernetesDependent(informer = @Informer(labelSelector = DesiredChildren.MANAGED_SELECTOR))
public final class GeneratedSecretDependent
    extends CRUDKubernetesDependentResource<Secret, InferaDeployment> {

  private static final SecureRandom RANDOM = new SecureRandom();

  public GeneratedSecretDependent() {
    super(Secret.class);
  }

  @Override
  protected Secret desired(InferaDeployment primary, Context<InferaDeployment> context) {
    Map<String, String> stored =
        getSecondaryResource(primary, context).map(Secret::getData).orElse(Map.of());
    return DesiredChildren.mutableMetadata(
        GeneratedSecret.build(DesiredChildren.of(primary, context).inputs(), stored, RANDOM));
  }

  @Override
  protected ResourceID targetSecondaryResourceID(
      InferaDeployment primary, Context<InferaDeployment> context) {
    return new ResourceID(
        Names.generatedSecret(primary.getMetadata().getName()),
        primary.getMetadata().getNamespace());
  }
}
