package io.infera.operator.install;

import static io.infera.operator.install.InstallFiles.all;
import static io.infera.operator.install.InstallFiles.map;
import static io.infera.operator.install.InstallFiles.only;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code kubectl kustomize} of config/ with the real kubectl 1.35. */
class KustomizeIT {

  static List<Map<String, Object>> kustomize(String dir) {
    List<Map<String, Object>> objects =
        InstallFiles.documents(
            InstallTools.ok(List.of(InstallTools.kubectl().toString(), "kustomize", dir)));
    OperatorPod.parse(objects);
    return objects;
  }

  @ParameterizedTest
  @ValueSource(strings = {"config/crd", "config/rbac", "config/manager"})
  void everyBaseBuildsAlone(String dir) {
    assertThat(kustomize(dir)).isNotEmpty();
  }

  @Test
  void defaultHoldsNamespaceCrdRbacAndTheOperator() {
    List<Map<String, Object>> objects = kustomize("config/default");
    assertThat(objects.stream().map(InstallFiles::kind).toList())
        .containsExactlyInAnyOrder(
            "Namespace",
            "CustomResourceDefinition",
            "ServiceAccount",
            "ClusterRole",
            "ClusterRoleBinding",
            "Role",
            "RoleBinding",
            "Service",
            "Deployment");
    String ns = InstallFiles.name(only(objects, "Namespace"));
    assertThat(ns).isEqualTo("infera-system");
    for (Map<String, Object> o : objects) {
      String kind = InstallFiles.kind(o);
      if (!List.of("Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding")
          .contains(kind)) {
        assertThat(map(o, "metadata").get("namespace")).as(kind).isEqualTo(ns);
      }
    }
    assertThat(InstallFiles.numbersNormalized(only(objects, "CustomResourceDefinition")))
        .isEqualTo(InstallFiles.numbersNormalized(InstallFiles.document(InstallFiles.CRD)));

    Deployment d = OperatorPod.deployment(only(objects, "Deployment"));
    OperatorPod.checkRestricted(d);
    assertThat(d.getSpec().getReplicas()).isEqualTo(1);
    assertThat(OperatorPod.leaderElection(d)).isFalse();
    Container c = OperatorPod.container(d);
    assertThat(c.getImage())
        .isEqualTo(
            InstallFiles.pomProperty("infera.image.registry")
                + "/infera-operator:"
                + InstallFiles.pomProperty("infera.image.tag"));
    String sa = InstallFiles.name(only(objects, "ServiceAccount"));
    assertThat(d.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo(sa);

    // Both bindings name the operator's ServiceAccount in its namespace.
    for (Map<String, Object> b :
        List.of(only(objects, "ClusterRoleBinding"), only(objects, "RoleBinding"))) {
      assertThat(InstallFiles.list(b, "subjects"))
          .containsExactly(Map.of("kind", "ServiceAccount", "name", sa, "namespace", ns));
    }
    assertThat(map(only(objects, "ClusterRoleBinding"), "roleRef").get("name"))
        .isEqualTo(InstallFiles.name(only(objects, "ClusterRole")));
    assertThat(map(only(objects, "RoleBinding"), "roleRef").get("name"))
        .isEqualTo(InstallFiles.name(only(objects, "Role")));
    assertThat(map(only(objects, "Service"), "spec", "selector"))
        .isEqualTo(d.getSpec().getSelector().getMatchLabels());
    assertThat(all(objects, "ServiceMonitor")).isEmpty();
  }
}
