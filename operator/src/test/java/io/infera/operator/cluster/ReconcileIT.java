package io.infera.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.infera.operator.api.v1alpha1.Conditions;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.InferaDeploymentStatus;
import io.infera.operator.desired.BuildResult;
import io.infera.operator.desired.DesiredFleet;
import io.infera.operator.reconciler.InferaDeploymentReconciler;
import io.infera.operator.runtime.InferaOperatorRuntime;
import io.infera.operator.testing.FakeRouters;
import io.infera.operator.testing.Fixtures;
import io.infera.operator.testing.KubeControlPlane;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Every sample applied with kubectl, reconciled by the operator as installed (its service account's
 * ClusterRole from {@code config/rbac}, server-side apply): children with our field manager, a
 * steady state that writes nothing, a user's labels kept, our fields restored, the status
 * subresource, the spec never written, garbage collection, and no 403 throughout.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReconcileIT {

  static final Duration RESYNC = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(60);

  private static KubeControlPlane cp;
  private static KubernetesClient admin;
  private static FakeRouters routers;
  private static InferaOperatorRuntime operator;
  private static final SimpleMeterRegistry METRICS = new SimpleMeterRegistry();

  /** Sample file → its namespace. */
  private static final Map<String, String> NAMESPACES = new LinkedHashMap<>();

  private static Instant started;

  @BeforeAll
  static void start() throws Exception {
    started = Instant.now();
    cp = KubeControlPlane.shared();
    OperatorOnCluster.install(cp);
    admin = cp.admin();
    routers = new FakeRouters();
    for (String sample : OperatorOnCluster.samples()) {
      NAMESPACES.put(sample, cp.newNamespace(sample.replace(".yaml", "")));
    }
    NAMESPACES.put("gc", cp.newNamespace("gc"));
    operator =
        OperatorOnCluster.start(
            cp,
            Set.copyOf(NAMESPACES.values()),
            RESYNC,
            routers.urlTemplate(),
            Optional.empty(),
            METRICS);
    for (String sample : OperatorOnCluster.samples()) {
      OperatorOnCluster.kubectlStdin(
          cp, OperatorOnCluster.sampleIn(sample, NAMESPACES.get(sample)), "apply", "-f", "-");
    }
  }

  @AfterAll
  static void stop() {
    OperatorOnCluster.stop("ReconcileIT", started, operator, routers, admin);
  }

  @Test
  @Order(0)
  void everySampleGetsItsChildrenFromServerSideApply() {
    for (var e : NAMESPACES.entrySet()) {
      if (e.getKey().equals("gc")) {
        continue;
      }
      String ns = e.getValue();
      InferaDeployment idep = only(ns);
      List<HasMetadata> want = desired(idep);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertThat(children(ns).keySet())
                      .as(e.getKey() + "\n" + OperatorOnCluster.problems())
                      .containsExactlyInAnyOrderElementsOf(
                          want.stream().map(ReconcileIT::key).toList()));
      for (HasMetadata got : children(ns).values()) {
        String what = e.getKey() + " " + key(got);
        assertThat(got.getMetadata().getManagedFields())
            .as(what + " managed by the operator's apply")
            .anySatisfy(
                m -> {
                  assertThat(m.getManager()).isEqualTo(InferaDeploymentReconciler.NAME);
                  assertThat(m.getOperation()).isEqualTo("Apply");
                });
        assertThat(got.getMetadata().getManagedFields())
            .as(what + ": nothing but the apply (no create/update from the operator)")
            .filteredOn(m -> m.getManager().equals(InferaDeploymentReconciler.NAME))
            .extracting(ManagedFieldsEntry::getOperation)
            .containsOnly("Apply");
        assertThat(got.getMetadata().getOwnerReferences())
            .as(what)
            .singleElement()
            .satisfies(
                (OwnerReference o) -> {
                  assertThat(o.getUid()).isEqualTo(idep.getMetadata().getUid());
                  assertThat(o.getController()).isTrue();
                  assertThat(o.getBlockOwnerDeletion()).isTrue();
                });
      }
      awaitStatus(ns, s -> s.getObservedGeneration() != null && s.getObservedGeneration() == 1L);
    }
  }

  @Test
  @Order(2)
  void aSteadyStateWritesNothing() throws InterruptedException {
    awaitQuiet();
    double before = OperatorOnCluster.reconciliations(METRICS);
    OperatorOnCluster.drainDiffs();
    Instant from = Instant.now();
    // A user touches the resource (metadata only: the generation stays, nothing to do).
    OperatorOnCluster.kubectl(
        cp, "-n", NAMESPACES.get("sim.yaml"), "annotate", "idep", "sim", "example.com/touched=1");
    Thread.sleep(RESYNC.multipliedBy(3).toMillis());
    assertThat(OperatorOnCluster.reconciliations(METRICS))
        .as("every sample reconciled again, at least twice")
        .isGreaterThanOrEqualTo(before + 2 * (NAMESPACES.size() - 1));
    assertThat(operatorWrites(w -> !w.at().isBefore(from)))
        .as(
            "writes of the operator over three resyncs in a steady state; the matcher's diffs:\n"
                + String.join("\n", OperatorOnCluster.drainDiffs()))
        .isEmpty();
  }

  @Test
  @Order(1)
  void kubectlGetShowsTheTableTheDocsShow() {
    String ns = NAMESPACES.get("sim.yaml");
    awaitStatus(ns, s -> s.getObservedGeneration() != null && s.getObservedGeneration() == 1L);
    String conditions =
        OperatorOnCluster.kubectl(
            cp,
            "-n",
            ns,
            "get",
            "idep",
            "sim",
            "-o",
            "jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason}{\"\\n\"}{end}");
    // What the docs say a fleet without a ready pod shows (there is no kubelet here).
    assertThat(conditions.strip().lines())
        .containsExactly(
            "Ready=False/" + Conditions.REASON_WAITING,
            "Progressing=True/" + Conditions.REASON_ROLLING_OUT,
            "Degraded=False/" + Conditions.REASON_AS_EXPECTED,
            "EventsFlowing=Unknown/" + Conditions.REASON_ROUTER_STATUS_UNAVAILABLE,
            "IndexAccurate=Unknown/" + Conditions.REASON_ROUTER_STATUS_UNAVAILABLE,
            "RenderParity=Unknown/" + Conditions.REASON_ROUTER_STATUS_UNAVAILABLE);
    String real = OperatorOnCluster.kubectl(cp, "-n", ns, "get", "idep");
    String wide = OperatorOnCluster.kubectl(cp, "-n", ns, "get", "idep", "-o", "wide");
    System.err.println("kubectl get idep (sim sample, no kubelet):\n" + real);
    assertThat(withoutAge(wide)).as("no column has priority > 0").isEqualTo(withoutAge(real));
    String docs = Fixtures.read(Fixtures.repoRoot().resolve("docs/operations.md"));
    String marker = "**`kubectl get idep`**";
    int at = docs.indexOf(marker);
    assertThat(at).as("docs/operations.md shows the table").isNotNegative();
    int open = docs.indexOf("```\n", at) + 4;
    String documented = docs.substring(open, docs.indexOf("```", open));
    assertThat(withoutAge(documented))
        .as("docs/operations.md's table is what kubectl prints for the sim sample:\n" + real)
        .isEqualTo(withoutAge(real));
  }

  /** Every line without its last column (AGE, which changes by the second). */
  private static List<String> withoutAge(String table) {
    List<String> lines = table.strip().lines().toList();
    assertThat(lines.get(0)).endsWith("AGE");
    return lines.stream().map(l -> l.replaceFirst("\\s*\\S+\\s*$", "")).toList();
  }

  @Test
  @Order(3)
  void aUsersLabelAndAnnotationOnAChildSurvive() {
    String ns = NAMESPACES.get("sim.yaml");
    OperatorOnCluster.kubectl(cp, "-n", ns, "label", "deployment", "sim-workers", "team=search");
    OperatorOnCluster.kubectl(
        cp, "-n", ns, "annotate", "service", "sim-router", "example.com/owner=search");
    double before = OperatorOnCluster.reconciliations(METRICS);
    await().atMost(WAIT).until(() -> OperatorOnCluster.reconciliations(METRICS) >= before + 8);
    awaitQuiet();
    assertThat(admin.apps().deployments().inNamespace(ns).withName("sim-workers").get())
        .extracting(d -> d.getMetadata().getLabels())
        .satisfies(l -> assertThat(l).containsEntry("team", "search"));
    assertThat(admin.services().inNamespace(ns).withName("sim-router").get())
        .extracting(s -> s.getMetadata().getAnnotations())
        .satisfies(a -> assertThat(a).containsEntry("example.com/owner", "search"));
  }

  @Test
  @Order(4)
  void aFieldWeOwnIsRestored() {
    String ns = NAMESPACES.get("sim.yaml");
    OperatorOnCluster.kubectl(cp, "-n", ns, "scale", "deployment", "sim-workers", "--replicas=7");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(replicas(ns, "sim-workers")).as("kubectl scale undone").isEqualTo(3));
    OperatorOnCluster.kubectl(
        cp,
        "-n",
        ns,
        "patch",
        "deployment",
        "sim-router",
        "--field-manager=someone-else",
        "--type=merge",
        "-p",
        "{\"spec\":{\"replicas\":5}}");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(replicas(ns, "sim-router")).as("patch undone").isEqualTo(2));
  }

  @Test
  @Order(5)
  void observedGenerationFollowsASpecEdit() {
    String ns = NAMESPACES.get("sim.yaml");
    OperatorOnCluster.kubectl(
        cp,
        "-n",
        ns,
        "patch",
        "idep",
        "sim",
        "--type=json",
        "-p",
        "[{\"op\":\"replace\",\"path\":\"/spec/pools/0/replicas\",\"value\":4}]");
    assertThat(only(ns).getMetadata().getGeneration()).isEqualTo(2L);
    InferaDeployment seen =
        awaitStatus(ns, s -> s.getObservedGeneration() != null && s.getObservedGeneration() == 2L);
    await().atMost(WAIT).untilAsserted(() -> assertThat(replicas(ns, "sim-workers")).isEqualTo(4));
    assertThat(seen.getStatus().getConditions())
        .extracting(Condition::getType)
        .containsExactly(
            Conditions.READY,
            Conditions.PROGRESSING,
            Conditions.DEGRADED,
            Conditions.EVENTS_FLOWING,
            Conditions.INDEX_ACCURATE,
            Conditions.RENDER_PARITY);
    assertThat(seen.getStatus().getConditions())
        .allSatisfy(c -> assertThat(c.getObservedGeneration()).isEqualTo(2L));
  }

  @Test
  @Order(6)
  void theSpecIsNeverWrittenByTheOperator() {
    for (String ns : NAMESPACES.values()) {
      if (admin.resources(InferaDeployment.class).inNamespace(ns).list().getItems().isEmpty()) {
        continue;
      }
      InferaDeployment idep = only(ns);
      assertThat(idep.getMetadata().getManagedFields())
          .as(ns + ": the operator's entries")
          .filteredOn(m -> m.getManager().equals(InferaDeploymentReconciler.NAME))
          .isNotEmpty()
          .allSatisfy(m -> assertThat(m.getSubresource()).isEqualTo("status"));
    }
    assertThat(
            operatorWrites(w -> w.resource().equals("inferadeployments")).stream()
                .map(KubeControlPlane.Write::subresource))
        .as("every write of the operator to an InferaDeployment")
        .isNotEmpty()
        .containsOnly("status");
  }

  @Test
  @Order(7)
  void deletingTheDeploymentCollectsItsChildren() {
    String ns = NAMESPACES.get("gc");
    OperatorOnCluster.kubectlStdin(
        cp, OperatorOnCluster.sampleIn("sim.yaml", ns), "apply", "-f", "-");
    await().atMost(WAIT).until(() -> children(ns).size() == desired(only(ns)).size());
    OperatorOnCluster.kubectl(cp, "-n", ns, "delete", "idep", "sim", "--wait=true");
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(children(ns)).as("collected\n" + cp.logs()).isEmpty());
  }

  @Test
  @Order(100)
  void theOperatorWasNeverForbidden() {
    assertThat(OperatorOnCluster.forbiddenWrites(cp)).as("403 in the audit log").isEmpty();
    assertThat(OperatorOnCluster.forbiddenInLogs()).as("403 in the operator's logs").isEmpty();
    // Outside the namespace whose deployment was deleted (where the collector races the
    // operator), no write of the operator is refused at all: e.g. a RoleBinding applied before
    // its Role cannot pass the server's escalation check (the operator holds no bind verb).
    String gc = NAMESPACES.get("gc");
    assertThat(operatorWrites(w -> w.code() >= 400 && !w.namespace().equals(gc)))
        .as("refused writes of the operator")
        .isEmpty();
    assertThat(operator.healthy()).isTrue();
  }

  // ---------------------------------------------------------------- helpers

  static String key(HasMetadata h) {
    return h.getKind() + "/" + h.getMetadata().getName();
  }

  private static List<HasMetadata> desired(InferaDeployment idep) {
    BuildResult built = DesiredFleet.build(idep);
    assertThat(built).isInstanceOf(BuildResult.Built.class);
    return List.copyOf(((BuildResult.Built) built).fleet().all());
  }

  private static InferaDeployment only(String ns) {
    List<InferaDeployment> all =
        admin.resources(InferaDeployment.class).inNamespace(ns).list().getItems();
    assertThat(all).as(ns).hasSize(1);
    return all.get(0);
  }

  private static int replicas(String ns, String name) {
    Deployment d = admin.apps().deployments().inNamespace(ns).withName(name).get();
    return d.getSpec().getReplicas();
  }

  private static InferaDeployment awaitStatus(String ns, Predicate<InferaDeploymentStatus> p) {
    return await()
        .atMost(WAIT)
        .until(() -> only(ns), i -> i.getStatus() != null && p.test(i.getStatus()));
  }

  /** Until the operator has not written for one resync period (after a change it settles). */
  private static void awaitQuiet() {
    OperatorOnCluster.drainDiffs();
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () ->
                assertThat(
                        operatorWrites(
                            w -> w.at().isAfter(Instant.now().minus(RESYNC.plusMillis(500)))))
                    .as(
                        "the operator's writes in the last resync; the matcher's diffs:\n"
                            + String.join("\n", OperatorOnCluster.drainDiffs()))
                    .isEmpty());
  }

  private static List<KubeControlPlane.Write> operatorWrites(Predicate<KubeControlPlane.Write> p) {
    Set<String> ours = Set.copyOf(NAMESPACES.values());
    return cp.writes(
        w ->
            w.user().equals(OperatorOnCluster.OPERATOR_USER)
                && ours.contains(w.namespace())
                && !w.resource().equals("events")
                && p.test(w));
  }

  static Map<String, HasMetadata> children(String ns) {
    return childrenOf(admin, ns);
  }

  /** The objects in {@code ns} that have an owner (the operator's children), by kind/name. */
  static Map<String, HasMetadata> childrenOf(KubernetesClient admin, String ns) {
    Map<String, HasMetadata> out = new TreeMap<>();
    List<List<? extends HasMetadata>> all =
        List.of(
            admin.configMaps().inNamespace(ns).list().getItems(),
            admin.serviceAccounts().inNamespace(ns).list().getItems(),
            admin.rbac().roles().inNamespace(ns).list().getItems(),
            admin.rbac().roleBindings().inNamespace(ns).list().getItems(),
            admin.apps().deployments().inNamespace(ns).list().getItems(),
            admin.services().inNamespace(ns).list().getItems(),
            admin.apps().statefulSets().inNamespace(ns).list().getItems(),
            admin.network().v1().networkPolicies().inNamespace(ns).list().getItems());
    for (List<? extends HasMetadata> l : all) {
      for (HasMetadata h : l) {
        // Every namespace has these from the server: not ours.
        if (h.getMetadata().getOwnerReferences() == null
            || h.getMetadata().getOwnerReferences().isEmpty()) {
          continue;
        }
        out.put(key(h), h);
      }
    }
    return out;
  }
}
