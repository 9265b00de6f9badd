package io.infera.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.infera.operator.install.InstallTools;
import io.infera.operator.install.SampleBreaches;
import io.infera.operator.testing.KubeControlPlane;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The CRD of {@code crds/} installs on a real API server with {@code kubectl apply}: the server
 * accepts the structural schema, compiles every CEL rule within its cost budget (an estimated cost
 * over budget refuses the CRD), prints no warning and publishes the API.
 */
class CrdInstallIT {

  private final KubeControlPlane cluster = KubeControlPlane.shared();

  @Test
  void crdInstallsWithoutWarningsAndIsEstablished() {
    InstallTools.Run install = Kubectl.installCrd(cluster);
    assertThat(install.stdout()).contains("customresourcedefinition.apiextensions.k8s.io");
    assertThat(install.stderr()).as("kubectl apply of the CRD: warnings").isBlank();
    try (KubernetesClient c = cluster.admin()) {
      CustomResourceDefinition crd =
          c.apiextensions()
              .v1()
              .customResourceDefinitions()
              .withName("inferadeployments.infera.io")
              .get();
      Map<String, String> conditions =
          crd.getStatus().getConditions().stream()
              .collect(
                  Collectors.toMap(
                      CustomResourceDefinitionCondition::getType,
                      CustomResourceDefinitionCondition::getStatus));
      assertThat(conditions)
          .containsEntry("Established", "True")
          .containsEntry("NamesAccepted", "True")
          .doesNotContainKey("NonStructuralSchema");
    }
  }

  /**
   * A fresh create of the same schema under another group, so that the server compiles every rule
   * and estimates its cost whatever ran first in this JVM (an apply of an unchanged CRD compiles
   * nothing new).
   */
  @Test
  void everyCelRuleCompilesOnAFreshCreate() throws Exception {
    String text =
        Files.readString(SampleBreaches.crdFile(), StandardCharsets.UTF_8)
            .replace(
                "name: \"inferadeployments.infera.io\"",
                "name: \"inferadeployments.crdcheck.infera.io\"")
            .replace("group: \"infera.io\"", "group: \"crdcheck.infera.io\"")
            // A short name of its own: with "idep" twice, kubectl's discovery (cached for the
            // whole run) could resolve the other tests' "idep" to this copy.
            .replace("- \"idep\"", "- \"idepcheck\"");
    assertThat(text).contains("crdcheck.infera.io\"\n").contains("- \"idepcheck\"");
    Instant start = Instant.now();
    InstallTools.Run r =
        Kubectl.run(cluster, "create", "-f", Kubectl.file("crd-copy", text).toString());
    try {
      assertThat(r.exitCode()).as("create of the CRD copy: %s", r.describe()).isZero();
      assertThat(Kubectl.warnings(r)).as("warnings").isEmpty();
      assertThat(r.stderr()).isBlank();
      Kubectl.ok(
          cluster,
          "wait",
          "--for=condition=Established",
          "--timeout=30s",
          "crd/inferadeployments.crdcheck.infera.io");
      System.err.println(
          "CrdInstallIT: CRD copy created and Established in "
              + Duration.between(start, Instant.now()).toMillis()
              + " ms");
    } finally {
      Kubectl.run(cluster, "delete", "crd", "inferadeployments.crdcheck.infera.io");
    }
  }

  /**
   * The server stores the CRD as we wrote it (no default it drops, such as a printer column's
   * {@code priority: 0}): otherwise the atomic {@code spec.versions} list differs and a server-side
   * apply (kubectl {@code --server-side}, Helm 4) conflicts with the client-side install.
   */
  @Test
  @SuppressWarnings("unchecked")
  void theStoredCrdIsTheFileSoAServerSideApplyDoesNotConflict() {
    Kubectl.installCrd(cluster);
    InstallTools.Run ssa =
        Kubectl.run(
            cluster,
            "apply",
            "--server-side",
            "--dry-run=server",
            "-f",
            SampleBreaches.crdFile().toString());
    assertThat(ssa.exitCode()).as(ssa.describe()).isZero();
    assertThat(ssa.stdout()).contains("serverside-applied (server dry run)");
    Map<String, Object> stored =
        SampleBreaches.parse(
            Kubectl.ok(cluster, "get", "crd", "inferadeployments.infera.io", "-o", "yaml")
                .stdout());
    Map<String, Object> file =
        SampleBreaches.parse(
            Kubectl.ok(
                    cluster,
                    "create",
                    "--dry-run=client",
                    "-o",
                    "yaml",
                    "-f",
                    SampleBreaches.crdFile().toString())
                .stdout());
    assertThat(
            SampleBreaches.numbersNormalized(
                ((Map<String, Object>) stored.get("spec")).get("versions")))
        .isEqualTo(
            SampleBreaches.numbersNormalized(
                ((Map<String, Object>) file.get("spec")).get("versions")));
  }

  @Test
  void theApiIsPublishedWithItsShortNameAndSchema() {
    Kubectl.installCrd(cluster);
    InstallTools.Run resources =
        Kubectl.ok(cluster, "api-resources", "--api-group=infera.io", "--no-headers");
    assertThat(resources.stdout())
        .containsPattern(
            "inferadeployments\\s+idep\\s+infera.io/v1alpha1\\s+true\\s+InferaDeployment");
    // kubectl explain reads the OpenAPI the server published from the CRD's schema.
    InstallTools.Run explain = explainWithRetry("inferadeployments.spec.pools.kvTransferRole");
    assertThat(explain.stdout()).contains("kv_producer").contains("NixlConnector");
    InstallTools.Run get = Kubectl.ok(cluster, "get", "idep", "--all-namespaces");
    assertThat(get.exitCode()).isZero();
  }

  /** The server publishes a new CRD's OpenAPI a moment after it is Established. */
  private InstallTools.Run explainWithRetry(String field) {
    Instant deadline = Instant.now().plusSeconds(30);
    InstallTools.Run r;
    do {
      // The group named: another test installs a copy of the CRD under another group.
      r = Kubectl.run(cluster, "explain", field, "--api-version=infera.io/v1alpha1");
      if (r.exitCode() == 0 && !r.stdout().isBlank()) {
        return r;
      }
      try {
        Thread.sleep(500);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    } while (Instant.now().isBefore(deadline));
    throw new AssertionError("kubectl explain " + field + ": " + r.describe());
  }
}
