package io.infera.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.operator.install.InstallTools;
import io.infera.operator.testing.KubeControlPlane;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The install manifests — {@code kubectl apply -k config/default} and {@code helm template} of the
 * chart with the value combinations that change its objects — validated by the real API server with
 * {@code --dry-run=server} (the CRD installed first; namespaced objects get their namespace).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InstallDryRunIT {

  private static final String CHART = "charts/infera-operator";

  private KubeControlPlane cluster;
  private String ns;

  @BeforeAll
  void setUp() {
    cluster = KubeControlPlane.shared();
    Kubectl.installCrd(cluster);
    ns = cluster.newNamespace("install");
  }

  @Test
  void kustomizeDefaultPassesTheServersValidation() {
    // The manifests name their namespace, and a dry run does not create it for the objects after
    // it: the first piece of the install goes in for real (as kubectl apply, so that the dry run
    // finds its last-applied annotation).
    Kubectl.ok(cluster, "apply", "-f", "config/manager/namespace.yaml");
    InstallTools.Run r = Kubectl.run(cluster, "apply", "--dry-run=server", "-k", "config/default");
    assertAccepted("kubectl apply -k config/default", r, 8);
    assertThat(r.stdout())
        .contains("customresourcedefinition.apiextensions.k8s.io/inferadeployments.infera.io")
        .contains("clusterrole.rbac.authorization.k8s.io/")
        .contains("deployment.apps/");
  }

  @Test
  void helmTemplateDefaultsPassTheServersValidation() {
    helmDryRun("defaults", List.of());
  }

  @Test
  void helmTemplateWithLeaderElectionAndTheMetricsServiceOffPassesTheServersValidation() {
    helmDryRun("replicas 2", List.of("replicas=2", "metrics.service.enabled=false"));
  }

  @Test
  void helmTemplateWatchingNamespacesPassesTheServersValidation() {
    String other = cluster.newNamespace("install-watched");
    helmDryRun(
        "watchNamespaces",
        List.of("watchNamespaces={" + ns + "," + other + "}", "leaderElection.enabled=true"));
  }

  /**
   * A real {@code helm install} (Helm 4: server-side apply) and uninstall: every object is stored
   * and removed (no pod runs: the control plane has no scheduler or kubelet).
   */
  @Test
  void helmInstallsAndUninstallsTheChart() {
    String helm = InstallTools.require().helm().toString();
    String release = "it-" + ns.substring(ns.lastIndexOf('-') + 1);
    String kubeconfig = "--kubeconfig=" + cluster.kubeconfig();
    InstallTools.Run install =
        InstallTools.run(
            List.of(
                helm, "install", release, CHART, "--namespace", ns, kubeconfig, "--wait=hookOnly"));
    assertThat(install.exitCode()).as(install.describe()).isZero();
    assertThat(install.stderr()).doesNotContain("Warning");
    InstallTools.Run deployment = Kubectl.ok(cluster, "-n", ns, "get", "deployment", "-o", "name");
    assertThat(deployment.stdout()).contains("deployment.apps/" + release + "-infera-operator");
    InstallTools.Run uninstall =
        InstallTools.run(List.of(helm, "uninstall", release, "--namespace", ns, kubeconfig));
    assertThat(uninstall.exitCode()).as(uninstall.describe()).isZero();
    assertThat(Kubectl.ok(cluster, "get", "clusterrole", "-o", "name").stdout())
        .doesNotContain(release + "-infera-operator");
  }

  private void helmDryRun(String what, List<String> sets) {
    List<String> cmd = new ArrayList<>();
    cmd.add(InstallTools.require().helm().toString());
    cmd.addAll(List.of("template", "infera", CHART, "--namespace", ns, "--include-crds"));
    for (String s : sets) {
      cmd.add("--set");
      cmd.add(s);
    }
    String manifest = InstallTools.ok(cmd);
    InstallTools.Run r =
        Kubectl.run(
            cluster, "apply", "--dry-run=server", "-f", Kubectl.file("chart", manifest).toString());
    assertAccepted("helm template (" + what + ")", r, 5);
    InstallTools.Run ssa =
        Kubectl.run(
            cluster,
            "apply",
            "--server-side",
            "--dry-run=server",
            "-f",
            Kubectl.file("chart", manifest).toString());
    assertAccepted("helm template (" + what + "), server-side apply", ssa, 5);
  }

  /**
   * kubectl's own notice when a server-side apply meets an object a client-side apply wrote (here
   * the CRD): it cannot yet hand the last-applied annotation over. Not a finding about our files.
   */
  private static boolean migrationNotice(String warning) {
    return warning.contains("failed to migrate kubectl.kubernetes.io/last-applied-configuration");
  }

  private static void assertAccepted(String what, InstallTools.Run r, int atLeast) {
    assertThat(r.exitCode()).as("%s: %s", what, r.describe()).isZero();
    assertThat(Kubectl.warnings(r).stream().filter(w -> !migrationNotice(w)))
        .as("%s: warnings", what)
        .isEmpty();
    assertThat(r.stdout().lines().filter(l -> l.contains("(server dry run)")).count())
        .as("%s: objects accepted: %s", what, r.stdout())
        .isGreaterThanOrEqualTo(atLeast);
    assertThat(r.stdout().lines().filter(l -> !l.isBlank() && !l.contains("(server dry run)")))
        .as("%s: every line a dry-run result", what)
        .isEmpty();
  }
}
