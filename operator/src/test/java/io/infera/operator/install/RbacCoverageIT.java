package io.infera.operator.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.NatsSpec;
import io.infera.operator.api.v1alpha1.PoolSpec;
import io.infera.operator.runtime.InferaOperatorRuntime;
import io.infera.operator.runtime.OperatorSettings;
import io.infera.operator.testing.FakeRouters;
import io.infera.operator.testing.Fixtures;
import io.infera.operator.testing.MockCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * config/rbac/ grants exactly what the operator calls: the operator runs a whole lifecycle (create,
 * add and remove a pool, switch to an external NATS, a refused spec) against fabric8's mock API
 * server, every request it makes is recorded, turned into a {@code group/resource:verb} permission
 * and must be granted; and every granted permission must be one of those, or its server-side-apply
 * twin (the mock server has no server-side apply, so production's PATCH is recorded as POST/PUT).
 */
class RbacCoverageIT {

  private static final String AGENT = "infera-operator-rbac-coverage";
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Pattern PATH =
      Pattern.compile(
          "^/(?:api/v1|apis/([^/]+)/[^/]+)(?:/namespaces/([^/]+))?/([^/]+)(?:/([^/]+))?(?:/([^/]+))?$");

  /** Granted though not recordable here, each for a stated reason. */
  private static final Set<String> NOT_RECORDED =
      Set.of(
          // Held so that the router Role the operator writes may grant them (RBAC escalation
          // check).
          "discovery.k8s.io/endpointslices:get",
          "discovery.k8s.io/endpointslices:list",
          "discovery.k8s.io/endpointslices:watch",
          // Checked, not called: the admission of an owner reference with blockOwnerDeletion
          // (OwnerReferencesPermissionEnforcement; ReconcileIT runs with it).
          "infera.io/inferadeployments/finalizers:update");

  @Test
  void everyCallIsGrantedAndEveryGrantIsUsed() throws Exception {
    Set<String> used;
    try (MockCluster cluster = new MockCluster();
        FakeRouters routers = new FakeRouters()) {
      KubernetesClient test = cluster.client();
      KubernetesClient operatorClient =
          new KubernetesClientBuilder()
              .withConfig(new ConfigBuilder(test.getConfiguration()).withUserAgent(AGENT).build())
              .build();
      OperatorSettings settings =
          OperatorSettings.defaults()
              .withServerSideApply(false)
              .withResync(Duration.ofMillis(300))
              .withRouterStatus(routers.urlTemplate(), Duration.ofSeconds(1));
      InferaOperatorRuntime operator =
          InferaOperatorRuntime.start(operatorClient, settings, new SimpleMeterRegistry(), true);
      try {
        lifecycle(cluster, test);
      } finally {
        operator.close();
      }
      used = recordedPermissions(cluster);
    }

    Set<String> granted = InstallFiles.permissions(InstallFiles.document("config/rbac/role.yaml"));
    Set<String> expected = new TreeSet<>(used);
    for (String p : used) {
      // What the operator creates it also repairs when it drifts (update), and server-side
      // apply (production) creates and updates with PATCH.
      if (p.endsWith(":create") || p.endsWith(":update")) {
        String resource = p.substring(0, p.lastIndexOf(':'));
        if (!resource.equals("core/events")) {
          expected.add(resource + ":update");
          expected.add(resource + ":patch");
        }
      }
    }
    expected.addAll(NOT_RECORDED);
    // Without server-side apply the status is written with a JSON patch, not update.
    assertThat(used)
        .as("calls recorded")
        .contains(
            "infera.io/inferadeployments:list",
            "infera.io/inferadeployments:watch",
            "infera.io/inferadeployments/status:patch",
            "apps/deployments:create",
            "apps/deployments:delete",
            "apps/statefulsets:delete",
            "core/events:create");
    assertThat(granted).as("config/rbac/role.yaml covers every call").containsAll(used);
    assertThat(granted)
        .as("config/rbac/role.yaml grants exactly the calls made (or explained in NOT_RECORDED)")
        .isEqualTo(expected);
  }

  /** Create, scale out, drop a pool, external NATS, refused args: every kind of write. */
  private static void lifecycle(MockCluster cluster, KubernetesClient client) {
    String ns = "rbac";
    InferaDeployment idep = Fixtures.parseSample("sim.yaml");
    idep.getMetadata().setNamespace(ns);
    idep.getMetadata().setUid(null);
    client.resource(idep).create();
    await().atMost(WAIT).until(() -> observed(client, ns) == 1L);
    cluster.rollOut(ns, "sim");

    edit(
        client,
        ns,
        i -> {
          PoolSpec extra = new PoolSpec();
          extra.setName("extra");
          extra.setReplicas(1);
          List<PoolSpec> pools = new ArrayList<>(i.getSpec().getPools());
          pools.add(extra);
          i.getSpec().setPools(pools);
          return i;
        });
    await()
        .atMost(WAIT)
        .until(
            () -> client.apps().deployments().inNamespace(ns).withName("sim-extra").get() != null);
    edit(
        client,
        ns,
        i -> {
          i.getSpec().getPools().removeIf(p -> p.getName().equals("extra"));
          NatsSpec nats = new NatsSpec();
          nats.setUrl("nats://nats.messaging:4222");
          i.getSpec().setNats(nats);
          return i;
        });
    await()
        .atMost(WAIT)
        .until(
            () ->
                client.apps().deployments().inNamespace(ns).withName("sim-extra").get() == null
                    && client.apps().statefulSets().inNamespace(ns).withName("sim-nats").get()
                        == null);
    edit(
        client,
        ns,
        i -> {
          i.getSpec().getPools().get(0).setArgs(List.of("--block-size", "32"));
          return i;
        });
    await()
        .atMost(WAIT)
        .until(() -> !client.v1().events().inNamespace(ns).list().getItems().isEmpty());
    await().atMost(WAIT).until(() -> observed(client, ns) == 4L);
  }

  private static long observed(KubernetesClient client, String ns) {
    InferaDeployment i =
        client.resources(InferaDeployment.class).inNamespace(ns).withName("sim").get();
    return i == null || i.getStatus() == null || i.getStatus().getObservedGeneration() == null
        ? 0
        : i.getStatus().getObservedGeneration();
  }

  private static void edit(
      KubernetesClient client, String ns, UnaryOperator<InferaDeployment> change) {
    // The operator writes the status meanwhile: a stale resourceVersion gets 409, read again.
    for (int attempt = 1; ; attempt++) {
      try {
        client.resources(InferaDeployment.class).inNamespace(ns).withName("sim").edit(change);
        return;
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 5) {
          throw e;
        }
      }
    }
  }

  /** The operator's requests (by user agent) as permissions. */
  private static Set<String> recordedPermissions(MockCluster cluster) throws Exception {
    Set<String> out = new TreeSet<>();
    RecordedRequest r;
    int all = 0;
    while ((r = cluster.server().takeRequest(1, TimeUnit.MILLISECONDS)) != null) {
      String agent = r.getHeader("User-Agent");
      if (agent == null || !agent.contains(AGENT)) {
        continue;
      }
      all++;
      out.add(permission(r.getMethod(), URI.create(r.getPath())));
    }
    assertThat(all).as("requests recorded with the operator's user agent").isPositive();
    return out;
  }

  static String permission(String method, URI uri) {
    Matcher m = PATH.matcher(uri.getPath());
    if (!m.matches()) {
      throw new AssertionError("unexpected API path " + uri);
    }
    String group = m.group(1) == null ? "" : m.group(1);
    String resource = m.group(3);
    String name = m.group(4);
    String sub = m.group(5);
    boolean watch = uri.getQuery() != null && uri.getQuery().contains("watch=true");
    String verb =
        switch (method) {
          case "GET" -> watch ? "watch" : name == null ? "list" : "get";
          case "POST" -> "create";
          case "PUT" -> "update";
          case "PATCH" -> "patch";
          case "DELETE" -> name == null ? "deletecollection" : "delete";
          default -> throw new AssertionError("unexpected method " + method + " " + uri);
        };
    return InstallFiles.permission(group, sub == null ? resource : resource + "/" + sub, verb);
  }
}
