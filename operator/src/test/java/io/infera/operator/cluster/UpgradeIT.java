package io.infera.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.desired.Names;
import io.infera.operator.reconciler.InferaDeploymentReconciler;
import io.infera.operator.runtime.InferaOperatorRuntime;
import io.infera.operator.testing.FakeRouters;
import io.infera.operator.testing.KubeControlPlane;
import io.infera.operator.testing.Previous;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An upgrade as a user makes it, on a real API server: the previous release's CRD, its samples and
 * the children its operator applied are in the cluster; then the new CRD is applied and the new
 * operator takes over. Every previous resource must converge without a refused write, keep the
 * RouterConfig its routers read (so they do not roll), and settle into a steady state that writes
 * nothing.
 */
class UpgradeIT {

  private static final Duration RESYNC = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(90);

  private static KubeControlPlane cp;
  private static KubernetesClient admin;
  private static FakeRouters routers;
  private static InferaOperatorRuntime operator;
  private static final SimpleMeterRegistry METRICS = new SimpleMeterRegistry();
  private static Instant started;

  /** Previous sample → its namespace. */
  private static final Map<String, String> NAMESPACES = new LinkedHashMap<>();

  /** Previous sample → the RouterConfig data the previous operator wrote. */
  private static final Map<String, Map<String, String>> PREVIOUS_CONFIG = new LinkedHashMap<>();

  @BeforeAll
  static void previousReleaseThenUpgrade() throws Exception {
    started = Instant.now();
    cp = KubeControlPlane.shared();
    OperatorOnCluster.install(cp);
    admin = cp.admin();
    // The previous release as it was installed: its CRD, its samples, its operator's children.
    OperatorOnCluster.kubectl(
        cp,
        "apply",
        "-f",
        Previous.dir().resolve("crd/inferadeployments.infera.io-v1.yml").toString());
    try (KubernetesClient asOperator =
        cp.asServiceAccount(
            OperatorOnCluster.SYSTEM_NAMESPACE, OperatorOnCluster.SERVICE_ACCOUNT)) {
      for (String sample : Previous.samples()) {
        String ns = cp.newNamespace("up-" + sample.replace(".yaml", ""));
        NAMESPACES.put(sample, ns);
        OperatorOnCluster.kubectlStdin(
            cp, inNamespace(Previous.cr(sample), ns), "apply", "-f", "-");
        InferaDeployment idep = only(ns);
        List<HasMetadata> children =
            asOperator
                .load(
                    new ByteArrayInputStream(
                        inNamespace(Previous.rendered(sample), ns)
                            .getBytes(StandardCharsets.UTF_8)))
                .items();
        for (HasMetadata child : children) {
          for (OwnerReference o : child.getMetadata().getOwnerReferences()) {
            o.setUid(idep.getMetadata().getUid());
          }
          asOperator
              .resource(child)
              .inNamespace(ns)
              .fieldManager(InferaDeploymentReconciler.NAME)
              .forceConflicts()
              .serverSideApply();
          if (child instanceof ConfigMap cm && cm.getMetadata().getName().endsWith("-router")) {
            PREVIOUS_CONFIG.put(sample, Map.copyOf(cm.getData()));
          }
        }
      }
    }
    // The upgrade: the CRD first, then the operator.
    OperatorOnCluster.kubectl(cp, "apply", "-f", "crds/inferadeployments.infera.io-v1.yml");
    routers = new FakeRouters();
    operator =
        OperatorOnCluster.start(
            cp,
            Set.copyOf(NAMESPACES.values()),
            RESYNC,
            routers.urlTemplate(),
            Optional.empty(),
            METRICS);
  }

  @AfterAll
  static void stop() {
    OperatorOnCluster.stop("UpgradeIT", started, operator, routers, admin);
  }

  @Test
  void everyPreviousResourceConvergesUnderTheNewOperator() {
    for (var e : NAMESPACES.entrySet()) {
      String ns = e.getValue();
      InferaDeployment idep =
          await()
              .atMost(WAIT)
              .until(
                  () -> only(ns),
                  i ->
                      i.getStatus() != null
                          && i.getStatus().getObservedGeneration() != null
                          && i.getStatus().getObservedGeneration()
                              == i.getMetadata().getGeneration());
      assertThat(idep.getStatus().getConditions())
          .as(e.getKey() + ": a previous resource is a valid spec for the new operator")
          .noneSatisfy(
              c -> {
                assertThat(c.getType()).isEqualTo("Degraded");
                assertThat(c.getStatus()).isEqualTo("True");
              });
      for (HasMetadata child : ReconcileIT.childrenOf(admin, ns).values()) {
        assertThat(child.getMetadata().getManagedFields())
            .as(e.getKey() + " " + child.getKind() + "/" + child.getMetadata().getName())
            .filteredOn(m -> m.getManager().equals(InferaDeploymentReconciler.NAME))
            .extracting(ManagedFieldsEntry::getOperation)
            .containsOnly("Apply");
      }
    }
  }

  @Test
  void theRoutersKeepTheirRouterConfig() {
    everyPreviousResourceConvergesUnderTheNewOperator();
    for (var e : NAMESPACES.entrySet()) {
      String name = only(e.getValue()).getMetadata().getName();
      ConfigMap now =
          admin.configMaps().inNamespace(e.getValue()).withName(Names.router(name)).get();
      assertThat(now.getData())
          .as(
              e.getKey()
                  + ": the new operator writes the previous RouterConfig for a previous resource"
                  + " (a change would roll every router at upgrade)")
          .isEqualTo(PREVIOUS_CONFIG.get(e.getKey()));
    }
  }

  @Test
  void afterTheUpgradeNothingIsRefusedAndNothingIsWritten() throws InterruptedException {
    everyPreviousResourceConvergesUnderTheNewOperator();
    Set<String> ours = Set.copyOf(NAMESPACES.values());
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                writes(ours, w -> w.at().isAfter(Instant.now().minus(RESYNC.plusMillis(500))))
                    .isEmpty());
    Instant from = Instant.now();
    Thread.sleep(RESYNC.multipliedBy(3).toMillis());
    assertThat(writes(ours, w -> !w.at().isBefore(from)))
        .as("the new operator's writes over three resyncs after the upgrade settled")
        .isEmpty();
    assertThat(writes(ours, w -> w.code() >= 400))
        .as("writes of the operator the server refused during the upgrade")
        .isEmpty();
  }

  private static List<KubeControlPlane.Write> writes(
      Set<String> namespaces, java.util.function.Predicate<KubeControlPlane.Write> p) {
    return cp.writes(
        w ->
            w.user().equals(OperatorOnCluster.OPERATOR_USER)
                && namespaces.contains(w.namespace())
                && !w.resource().equals("events")
                && !w.at().isBefore(started)
                && p.test(w));
  }

  private static InferaDeployment only(String ns) {
    List<InferaDeployment> items =
        admin.resources(InferaDeployment.class).inNamespace(ns).list().getItems();
    assertThat(items).hasSize(1);
    return items.get(0);
  }

  /**
   * A previous file with the namespace it was written for replaced by {@code ns} (every object and
   * every reference in a sample's files is in the resource's own namespace).
   */
  private static String inNamespace(String yaml, String ns) {
    return yaml.replaceAll("(?m)^(\\s*(?:- )?)namespace: [a-z0-9-]+$", "$1namespace: " + ns)
        .replaceAll("InferaDeployment [a-z0-9-]+/", "InferaDeployment " + ns + "/");
  }
}
