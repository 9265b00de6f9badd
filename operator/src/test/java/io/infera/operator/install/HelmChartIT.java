package io.infera.operator.install;

import static io.infera.operator.install.InstallFiles.all;
import static io.infera.operator.install.InstallFiles.map;
import static io.infera.operator.install.InstallFiles.only;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.infera.operator.cli.RunCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** {@code helm lint} and {@code helm template} of charts/infera-operator with the real helm 4.1. */
class HelmChartIT {

  static final String CHART = "charts/infera-operator";

  /** {@code helm template} with {@code --set} pairs; every rendered object parses. */
  static List<Map<String, Object>> template(String... sets) {
    List<String> cmd = new ArrayList<>();
    cmd.add(InstallTools.require().helm().toString());
    cmd.addAll(List.of("template", "infera", CHART, "--namespace", "infera-system"));
    cmd.add("--include-crds");
    for (String s : sets) {
      cmd.add("--set");
      cmd.add(s);
    }
    List<Map<String, Object>> objects = InstallFiles.documents(InstallTools.ok(cmd));
    OperatorPod.parse(objects);
    return objects;
  }

  @Test
  void lintsWithDefaultAndNonDefaultValues() {
    String helm = InstallTools.require().helm().toString();
    assertThat(InstallTools.ok(List.of(helm, "lint", "--strict", CHART)))
        .contains("1 chart(s) linted, 0 chart(s) failed");
    assertThat(
            InstallTools.ok(
                List.of(
                    helm,
                    "lint",
                    "--strict",
                    CHART,
                    "--set",
                    "replicas=3",
                    "--set",
                    "serviceMonitor.enabled=true",
                    "--set",
                    "watchNamespaces={a,b}")))
        .contains("0 chart(s) failed");
  }

  @Test
  void defaultsRenderOneRestrictedReplicaWatchingEveryNamespace() {
    List<Map<String, Object>> objects = template();
    assertThat(objects.stream().map(InstallFiles::kind).toList())
        .containsExactlyInAnyOrder(
            "CustomResourceDefinition",
            "ServiceAccount",
            "ClusterRole",
            "ClusterRoleBinding",
            "Service",
            "Deployment");

    Deployment d = OperatorPod.deployment(only(objects, "Deployment"));
    OperatorPod.checkRestricted(d);
    assertThat(d.getSpec().getReplicas()).isEqualTo(1);
    assertThat(OperatorPod.leaderElection(d)).isFalse();
    assertThat(d.getSpec().getStrategy().getType()).isEqualTo("Recreate");
    Container c = OperatorPod.container(d);
    assertThat(c.getImage())
        .isEqualTo(
            InstallFiles.pomProperty("infera.image.registry")
                + "/infera-operator:"
                + InstallFiles.pomProperty("infera.image.tag"));
    assertThat(OperatorPod.env(c, "WATCH_NAMESPACE")).hasValue("");
    assertThat(OperatorPod.env(c, "INFERA_LOG_LEVEL")).hasValue("INFO");
    assertThat(d.getSpec().getTemplate().getSpec().getServiceAccountName())
        .isEqualTo(InstallFiles.name(only(objects, "ServiceAccount")));

    // The metrics Service reaches the pod's http port.
    Map<String, Object> svc = only(objects, "Service");
    assertThat(map(svc, "spec", "selector")).isEqualTo(d.getSpec().getSelector().getMatchLabels());
    assertThat(InstallFiles.list(svc, "spec", "ports").toString())
        .contains("targetPort=http", "name=http-metrics");

    // The chart's CRD is the generated one.
    assertThat(InstallFiles.numbersNormalized(only(objects, "CustomResourceDefinition")))
        .isEqualTo(InstallFiles.numbersNormalized(InstallFiles.document(InstallFiles.CRD)));
  }

  @Test
  void nonDefaultValuesTurnOnLeaderElectionNamespacedBindingsAndTheServiceMonitor() {
    List<Map<String, Object>> objects =
        template(
            "replicas=2",
            "serviceMonitor.enabled=true",
            "serviceMonitor.labels.release=prometheus",
            "watchNamespaces={team-a,team-b}",
            "image.registry=registry.example.com/ml",
            "image.tag=1.2.3",
            "logLevel=debug",
            "resync=45s",
            "extraArgs={--router-status-timeout=5s}");
    Deployment d = OperatorPod.deployment(only(objects, "Deployment"));
    OperatorPod.checkRestricted(d);
    Container c = OperatorPod.container(d);
    assertThat(d.getSpec().getReplicas()).isEqualTo(2);
    assertThat(OperatorPod.leaderElection(d)).isTrue();
    assertThat(d.getSpec().getStrategy()).isNull();
    assertThat(c.getImage()).isEqualTo("registry.example.com/ml/infera-operator:1.2.3");
    assertThat(OperatorPod.env(c, "WATCH_NAMESPACE")).hasValue("team-a,team-b");
    assertThat(OperatorPod.env(c, "INFERA_LOG_LEVEL")).hasValue("DEBUG");
    RunCommand run = OperatorPod.runOptions(c.getArgs());
    assertThat(c.getArgs())
        .contains("--leader-election", "--resync=45s", "--router-status-timeout=5s")
        .anySatisfy(a -> assertThat(a).startsWith("--lease-name="));

    // Watched namespaces only: one RoleBinding each to the ClusterRole, no cluster-wide binding.
    assertThat(all(objects, "ClusterRoleBinding")).isEmpty();
    String clusterRole = InstallFiles.name(only(objects, "ClusterRole"));
    List<Map<String, Object>> bindings = all(objects, "RoleBinding");
    assertThat(bindings.stream().map(b -> map(b, "metadata").get("namespace")).toList())
        .containsExactlyInAnyOrder("team-a", "team-b", "infera-system");
    for (Map<String, Object> b : bindings) {
      String ns = String.valueOf(map(b, "metadata").get("namespace"));
      Map<String, Object> ref = map(b, "roleRef");
      if (ns.equals("infera-system")) {
        assertThat(ref).containsEntry("kind", "Role");
      } else {
        assertThat(ref).containsEntry("kind", "ClusterRole").containsEntry("name", clusterRole);
      }
    }
    // The Lease Role lives where the operator looks for the Lease (POD_NAMESPACE).
    Map<String, Object> leaseRole = only(objects, "Role");
    assertThat(map(leaseRole, "metadata")).containsEntry("namespace", "infera-system");
    assertThat(InstallFiles.permissions(leaseRole))
        .containsExactlyInAnyOrder(
            "coordination.k8s.io/leases:create",
            "coordination.k8s.io/leases:get",
            "coordination.k8s.io/leases:patch",
            "coordination.k8s.io/leases:update");

    Map<String, Object> sm = only(objects, "ServiceMonitor");
    Map<String, Object> svc = only(objects, "Service");
    assertThat(map(sm, "metadata", "labels")).containsEntry("release", "prometheus");
    assertThat(map(svc, "metadata", "labels"))
        .containsAllEntriesOf(map(sm, "spec", "selector", "matchLabels"));
    assertThat(map(sm, "spec", "selector", "matchLabels")).isNotEmpty();
    assertThat(InstallFiles.list(sm, "spec", "endpoints").toString())
        .contains("port=http-metrics", "path=/metrics");
    assertThat(run).isNotNull();
  }

  @Test
  void leaderElectionCanBeForcedOnWithOneReplica() {
    List<Map<String, Object>> objects = template("leaderElection.enabled=true");
    Deployment d = OperatorPod.deployment(only(objects, "Deployment"));
    assertThat(d.getSpec().getReplicas()).isEqualTo(1);
    assertThat(OperatorPod.leaderElection(d)).isTrue();
    assertThat(new TreeSet<>(objects.stream().map(InstallFiles::kind).toList()))
        .contains("Role", "RoleBinding");
  }

  @Test
  void aServiceMonitorWithoutTheMetricsServiceIsRefused() {
    InstallTools.Run r =
        InstallTools.run(
            List.of(
                InstallTools.require().helm().toString(),
                "template",
                "infera",
                CHART,
                "--set",
                "serviceMonitor.enabled=true",
                "--set",
                "metrics.service.enabled=false"));
    assertThat(r.exitCode()).as(r.describe()).isNotZero();
    assertThat(r.stderr()).contains("serviceMonitor.enabled needs metrics.service.enabled");
  }

  @Test
  void everyEnvironmentVariableTheChartSetsIsReadByTheOperator() {
    Deployment d = OperatorPod.deployment(only(template(), "Deployment"));
    String sources = OperatorSources.mainText();
    for (var e : OperatorPod.container(d).getEnv()) {
      assertThat(sources)
          .as("operator/src/main reads %s", e.getName())
          .containsAnyOf(
              "env:" + e.getName(), "getenv(\"" + e.getName() + "\")", "${" + e.getName());
    }
  }
}
