package io.infera.operator.desired;

import io.infera.operator.api.v1alpha1.PoolRole;
import java.util.Map;
import java.util.TreeMap;

/**
 * Labels of the child objects (a contract). Selectors use the smallest stable subset: a
 * Deployment's selector is immutable, so a pool's role is a label but not part of its selector.
 */
public final class Labels {

  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";

  /** On the operator's own pods (config/manager, the Helm chart): network policies select it. */
  public static final String NAME = "app.kubernetes.io/name";

  public static final String OPERATOR_NAME = "infera-operator";
  public static final String PART_OF = "app.kubernetes.io/part-of";
  public static final String COMPONENT = "app.kubernetes.io/component";
  public static final String DEPLOYMENT = "infera.io/deployment";
  public static final String POOL = "infera.io/pool";
  public static final String ROLE = "infera.io/role";

  public static final String MANAGED_BY_VALUE = "infera-operator";
  public static final String PART_OF_VALUE = "infera";

  public static final String COMPONENT_ROUTER = "router";
  public static final String COMPONENT_WORKER = "worker";
  public static final String COMPONENT_NATS = "nats";

  private Labels() {}

  /** On every child of {@code deployment}. */
  public static Map<String, String> common(String deployment) {
    Map<String, String> m = new TreeMap<>();
    m.put(MANAGED_BY, MANAGED_BY_VALUE);
    m.put(PART_OF, PART_OF_VALUE);
    m.put(DEPLOYMENT, deployment);
    return m;
  }

  public static Map<String, String> router(String deployment) {
    Map<String, String> m = common(deployment);
    m.put(COMPONENT, COMPONENT_ROUTER);
    return m;
  }

  public static Map<String, String> routerSelector(String deployment) {
    return selector(deployment, COMPONENT_ROUTER);
  }

  public static Map<String, String> pool(String deployment, String pool, PoolRole role) {
    Map<String, String> m = common(deployment);
    m.put(COMPONENT, COMPONENT_WORKER);
    m.put(POOL, pool);
    m.put(ROLE, role.value());
    return m;
  }

  /** Every worker pod of {@code deployment}, whatever its pool. */
  public static Map<String, String> workersSelector(String deployment) {
    return selector(deployment, COMPONENT_WORKER);
  }

  /** Every worker pod of {@code deployment} whose pool has {@code role}. */
  public static Map<String, String> roleSelector(String deployment, PoolRole role) {
    Map<String, String> m = selector(deployment, COMPONENT_WORKER);
    m.put(ROLE, role.value());
    return m;
  }

  public static Map<String, String> poolSelector(String deployment, String pool) {
    Map<String, String> m = selector(deployment, COMPONENT_WORKER);
    m.put(POOL, pool);
    return m;
  }

  public static Map<String, String> nats(String deployment) {
    Map<String, String> m = common(deployment);
    m.put(COMPONENT, COMPONENT_NATS);
    return m;
  }

  public static Map<String, String> natsSelector(String deployment) {
    return selector(deployment, COMPONENT_NATS);
  }

  private static Map<String, String> selector(String deployment, String component) {
    Map<String, String> m = new TreeMap<>();
    m.put(DEPLOYMENT, deployment);
    m.put(COMPONENT, component);
    return m;
  }
}
