package io.infera.operator.desired;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Every child object of one {@code InferaDeployment}, as the reconciler's dependents and {@code
 * render} need them: typed, keyed by pool name, and as one deterministically ordered list.
 *
 * @param natsStatefulSet absent with an external NATS ({@code spec.nats.url})
 * @param natsService absent with an external NATS
 * @param natsConfigMap absent with an external NATS
 * @param poolDeployments by pool name
 * @param poolServices by pool name
 * @param networkPolicies by name; empty when {@code spec.networkPolicy.enabled} is false
 */
public record Fleet(
    RenderInputs inputs,
    Optional<StatefulSet> natsStatefulSet,
    Optional<Service> natsService,
    Optional<ConfigMap> natsConfigMap,
    ConfigMap routerConfigMap,
    ServiceAccount routerServiceAccount,
    Role routerRole,
    RoleBinding routerRoleBinding,
    Deployment routerDeployment,
    Service routerService,
    SortedMap<String, Deployment> poolDeployments,
    SortedMap<String, Service> poolServices,
    SortedMap<String, NetworkPolicy> networkPolicies) {

  /**
   * Kinds in the order a person reads (and Helm installs) them: identities and configuration, then
   * access, then Services, then workloads.
   */
  public static final List<String> KIND_ORDER =
      List.of(
          "ServiceAccount",
          "ConfigMap",
          "Role",
          "RoleBinding",
          "Service",
          "NetworkPolicy",
          "Deployment",
          "StatefulSet");

  /** Orders objects by {@link #KIND_ORDER}, then by name. */
  public static final Comparator<HasMetadata> ORDER =
      Comparator.<HasMetadata>comparingInt(Fleet::kindRank)
          .thenComparing(o -> o.getMetadata().getName());

  public Fleet {
    poolDeployments = Collections.unmodifiableSortedMap(new TreeMap<>(poolDeployments));
    poolServices = Collections.unmodifiableSortedMap(new TreeMap<>(poolServices));
    networkPolicies = Collections.unmodifiableSortedMap(new TreeMap<>(networkPolicies));
  }

  /** Every child, sorted by kind ({@link #KIND_ORDER}) then name. */
  public List<HasMetadata> all() {
    List<HasMetadata> out = new ArrayList<>();
    natsStatefulSet.ifPresent(out::add);
    natsService.ifPresent(out::add);
    natsConfigMap.ifPresent(out::add);
    out.add(routerConfigMap);
    out.add(routerServiceAccount);
    out.add(routerRole);
    out.add(routerRoleBinding);
    out.add(routerDeployment);
    out.add(routerService);
    out.addAll(poolDeployments.values());
    out.addAll(poolServices.values());
    out.addAll(networkPolicies.values());
    out.sort(ORDER);
    return List.copyOf(out);
  }

  private static int kindRank(HasMetadata o) {
    int i = KIND_ORDER.indexOf(o.getKind());
    return i < 0 ? KIND_ORDER.size() : i;
  }
}
