package io.infera.operator.dependent;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.desired.Fleet;
import io.infera.operator.desired.Names;
import io.infera.operator.desired.NatsCredentials;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.security.SecureRandom;
import java.util.Map;

/**
 * The operator-deployed NATS, {@code <idep>-nats}: reconciled while {@link Deployed} holds, deleted
 * when the spec switches to an external {@code nats.url}.
 */
public final class NatsDependents {

  private NatsDependents() {}

  /** Precondition: the spec asks the operator to deploy NATS (no {@code spec.nats.url}). */
  public static final class Deployed implements Condition<Object, InferaDeployment> {
    @Override
    public boolean isMet(
        DependentResource<Object, InferaDeployment> dependentResource,
        InferaDeployment primary,
        Context<InferaDeployment> context) {
      return DesiredChildren.of(primary, context).inputs().nats().deployed();
    }
  }

  @KubernetesDependent(informer = @Informer(labelSelector = DesiredChildren.MANAGED_SELECTOR))
  public static final class StatefulSetDependent extends FleetDependent<StatefulSet> {
    public StatefulSetDependent() {
      super(StatefulSet.class);
    }

    @Override
    protected StatefulSet pick(Fleet fleet) {
      return fleet
          .natsStatefulSet()
          .orElseThrow(() -> new IllegalStateException("NATS is external: no StatefulSet"));
    }

    @Override
    protected String name(InferaDeployment primary) {
      return Names.nats(primary.getMetadata().getName());
    }
  }

  /** Uses the shared Service informer ({@link DesiredChildren#SERVICES}). */
  public static final class ServiceDependent extends FleetDependent<Service> {
    public ServiceDependent() {
      super(Service.class);
    }

    @Override
    protected Service pick(Fleet fleet) {
      return fleet
          .natsService()
          .orElseThrow(() -> new IllegalStateException("NATS is external: no Service"));
    }

    @Override
    protected String name(InferaDeployment primary) {
      return Names.nats(primary.getMetadata().getName());
    }
  }

  /**
   * The generated credentials of the operator's NATS ({@link NatsCredentials#secret}): what the
   * cluster holds is kept, so a password is made once (when the Secret or a pool's key is missing)
   * and never rotated by a resync; delete the Secret to rotate them all.
   */
  @KubernetesDependent(informer = @Informer(labelSelector = DesiredChildren.MANAGED_SELECTOR))
  public static final class AuthSecretDependent
      extends CRUDKubernetesDependentResource<Secret, InferaDeployment> {

    private static final SecureRandom RANDOM = new SecureRandom();

    public AuthSecretDependent() {
      super(Secret.class);
    }

    @Override
    protected Secret desired(InferaDeployment primary, Context<InferaDeployment> context) {
      Map<String, String> existing =
          context.getSecondaryResources(Secret.class).stream()
              .filter(
                  s ->
                      NatsCredentials.secretName(primary.getMetadata().getName())
                          .equals(s.getMetadata().getName()))
              .findFirst()
              .map(Secret::getData)
              .orElse(Map.of());
      return DesiredChildren.mutableMetadata(
          NatsCredentials.secret(
              DesiredChildren.of(primary, context).inputs(),
              existing,
              () -> NatsCredentials.generatePassword(RANDOM)));
    }

    @Override
    protected ResourceID targetSecondaryResourceID(
        InferaDeployment primary, Context<InferaDeployment> context) {
      return new ResourceID(
          NatsCredentials.secretName(primary.getMetadata().getName()),
          primary.getMetadata().getNamespace());
    }
  }

  /** The server configuration ({@code max_payload}, JetStream limits, users and permissions). */
  /** Uses the shared ConfigMap informer ({@link DesiredChildren#CONFIGMAPS}). */
  public static final class ConfigMapDependent extends FleetDependent<ConfigMap> {
    public ConfigMapDependent() {
      super(ConfigMap.class);
    }

    @Override
    protected ConfigMap pick(Fleet fleet) {
      return fleet
          .natsConfigMap()
          .orElseThrow(() -> new IllegalStateException("NATS is external: no ConfigMap"));
    }

    @Override
    protected String name(InferaDeployment primary) {
      return Names.nats(primary.getMetadata().getName());
    }
  }
}
