package io.infera.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.infera.operator.testing.KubeControlPlane;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The harness itself: a real server that authorizes, audits writes and collects garbage. */
class ControlPlaneIT {

  private final KubeControlPlane cluster = KubeControlPlane.shared();

  @Test
  void serverIsTheBuiltRelease() {
    try (KubernetesClient c = cluster.admin()) {
      assertThat(c.getKubernetesVersion().getGitVersion())
          .isEqualTo(KubeControlPlane.KUBERNETES_VERSION);
    }
  }

  @Test
  void writesAreAuditedWithTheirUser() {
    String ns = cluster.newNamespace("audit");
    Instant before = Instant.now().minusSeconds(1);
    try (KubernetesClient c = cluster.admin()) {
      c.configMaps().inNamespace(ns).resource(configMap("one")).create();
    }
    assertThat(
            cluster.writes(
                w ->
                    w.namespace().equals(ns)
                        && w.resource().equals("configmaps")
                        && !w.at().isBefore(before)))
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.verb()).isEqualTo("create");
              assertThat(w.user()).isEqualTo("infera-admin");
              assertThat(w.name()).isEqualTo("one");
              assertThat(w.code()).isEqualTo(201);
            });
  }

  @Test
  void anUnboundServiceAccountIsForbidden() {
    String ns = cluster.newNamespace("rbac");
    try (KubernetesClient c = cluster.asServiceAccount(ns, "nobody")) {
      assertThatThrownBy(() -> c.configMaps().inNamespace(ns).list())
          .isInstanceOf(KubernetesClientException.class)
          .extracting(e -> ((KubernetesClientException) e).getCode())
          .isEqualTo(403);
    }
  }

  @Test
  void ownedObjectsAreCollectedWithTheirOwner() throws InterruptedException {
    String ns = cluster.newNamespace("gc");
    try (KubernetesClient c = cluster.admin()) {
      ConfigMap owner = c.configMaps().inNamespace(ns).resource(configMap("owner")).create();
      ConfigMap child = configMap("child");
      child
          .getMetadata()
          .getOwnerReferences()
          .add(
              new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
                  .withApiVersion("v1")
                  .withKind("ConfigMap")
                  .withName("owner")
                  .withUid(owner.getMetadata().getUid())
                  .build());
      c.configMaps().inNamespace(ns).resource(child).create();
      c.configMaps().inNamespace(ns).withName("owner").delete();
      Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
      while (c.configMaps().inNamespace(ns).withName("child").get() != null) {
        assertThat(Instant.now()).as("child collected\n" + cluster.logs()).isBefore(deadline);
        Thread.sleep(200);
      }
    }
  }

  private static ConfigMap configMap(String name) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .addToData("k", "v")
        .build();
  }
}
