package io.infera.operator.desired;

/** Names of the child objects (a contract: users, the router and dashboards rely on them). */
public final class Names {

  /** Kubernetes Service names are DNS-1035 labels of at most 63 characters. */
  public static final int MAX_SERVICE_NAME = 63;

  /** The router's ConfigMap key and where the router reads it. */
  public static final String ROUTER_CONFIG_KEY = "router.yaml";

  public static final String ROUTER_CONFIG_DIR = "/etc/infera";
  public static final String ROUTER_CONFIG_PATH = ROUTER_CONFIG_DIR + "/" + ROUTER_CONFIG_KEY;

  /** Container names. */
  public static final String ROUTER_CONTAINER = "router";

  public static final String ENGINE_CONTAINER = "engine";
  public static final String RELAY_CONTAINER = "relay";
  public static final String NATS_CONTAINER = "nats";

  private Names() {}

  /** Router ConfigMap, Deployment, Service, ServiceAccount, Role and RoleBinding. */
  public static String router(String deployment) {
    return deployment + "-router";
  }

  /** A pool's Deployment and headless Service (the router discovers workers through it). */
  public static String pool(String deployment, String pool) {
    return deployment + "-" + pool;
  }

  /**
   * The Secret the operator generates once per deployment (PYTHONHASHSEED, the routers' admin
   * token); owned by the InferaDeployment.
   */
  public static String generatedSecret(String deployment) {
    return deployment + "-infera";
  }

  /** The NetworkPolicy of the router pods, of a pool's pods, or of NATS: the object's own name. */
  public static String networkPolicy(String objectName) {
    return objectName;
  }

  /** NATS StatefulSet and headless Service. */
  public static String nats(String deployment) {
    return deployment + "-nats";
  }
}
