package io.infera.operator.dependent;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.desired.Fleet;
import io.infera.operator.desired.Names;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;

/** The router's children, all named {@code <idep>-router}. */
public final class RouterDependents {

  private RouterDependents() {}

  private abstract static class RouterChild<R extends HasMetadata> extends FleetDependent<R> {
    RouterChild(Class<R> type) {
      super(type);
    }

    @Override
    protected String name(InferaDeployment primary) {
      return Names.router(primary.getMetadata().getName());
    }
  }

  /**
   * The RouterConfig document; uses the shared ConfigMap informer ({@link
   * DesiredChildren#CONFIGMAPS}).
   */
  public static final class ConfigMapDependent extends RouterChild<ConfigMap> {
    public ConfigMapDependent() {
      super(ConfigMap.class);
    }

    @Override
    protected ConfigMap pick(Fleet fleet) {
      return fleet.routerConfigMap();
    }
  }

  @KubernetesDependent(informer = @Informer(labelSelector = DesiredChildren.MANAGED_SELECTOR))
  public static final class ServiceAccountDependent extends RouterChild<ServiceAccount> {
    public ServiceAccountDependent() {
      super(ServiceAccount.class);
    }

    @Override
    protected ServiceAccount pick(Fleet fleet) {
      return fleet.routerServiceAccount();
    }
  }

  /** Read access to EndpointSlices. */
  @KubernetesDependent(informer = @Informer(labelSelector = DesiredChildren.MANAGED_SELECTOR))
  public static final class RoleDependent extends RouterChild<Role> {
    public RoleDependent() {
      super(Role.class);
    }

    @Override
    protected Role pick(Fleet fleet) {
      return fleet.routerRole();
    }
  }

  @KubernetesDependent(informer = @Informer(labelSelector = DesiredChildren.MANAGED_SELECTOR))
  public static final class RoleBindingDependent extends RouterChild<RoleBinding> {
    public RoleBindingDependent() {
      super(RoleBinding.class);
    }

    @Override
    protected RoleBinding pick(Fleet fleet) {
      return fleet.routerRoleBinding();
    }
  }

  /** Uses the shared Deployment informer ({@link DesiredChildren#DEPLOYMENTS}). */
  public static final class DeploymentDependent extends RouterChild<Deployment> {
    public DeploymentDependent() {
      super(Deployment.class);
    }

    @Override
    protected Deployment pick(Fleet fleet) {
      return fleet.routerDeployment();
    }
  }

  /** Uses the shared Service informer ({@link DesiredChildren#SERVICES}). */
  public static final class ServiceDependent extends RouterChild<Service> {
    public ServiceDependent() {
      super(Service.class);
    }

    @Override
    protected Service pick(Fleet fleet) {
      return fleet.routerService();
    }
  }
}
