package io.infera.operator.install;

import static io.infera.operator.install.InstallFiles.only;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The chart's RBAC and config/rbac/ grant the same permissions (compared as sets). */
class RbacConsistencyIT {

  @Test
  void clusterRolesAreTheSame() {
    Map<String, Object> chart = only(HelmChartIT.template(), "ClusterRole");
    Map<String, Object> kustomize = InstallFiles.document("config/rbac/role.yaml");
    assertThat(InstallFiles.permissions(chart))
        .isNotEmpty()
        .isEqualTo(InstallFiles.permissions(kustomize));
  }

  @Test
  void leaderElectionRolesAreTheSame() {
    List<Map<String, Object>> objects = HelmChartIT.template("replicas=2");
    assertThat(InstallFiles.permissions(only(objects, "Role")))
        .isNotEmpty()
        .isEqualTo(
            InstallFiles.permissions(
                InstallFiles.document("config/rbac/leader_election_role.yaml")));
  }
}
