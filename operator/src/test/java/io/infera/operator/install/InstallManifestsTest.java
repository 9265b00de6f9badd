package io.infera.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Copies and versions that must follow their source (no tools needed). */
class InstallManifestsTest {

  @Test
  void crdCopiesAreByteIdenticalToTheGeneratedCrd() {
    byte[] crd = InstallFiles.bytes(InstallFiles.CRD);
    assertThat(InstallFiles.bytes("charts/infera-operator/crds/inferadeployments.infera.io-v1.yml"))
        .as("charts/infera-operator/crds/ (refresh: cp crds/*.yml charts/infera-operator/crds/)")
        .isEqualTo(crd);
    assertThat(InstallFiles.bytes("config/crd/bases/inferadeployments.infera.io-v1.yml"))
        .as("config/crd/bases/ (refresh: cp crds/*.yml config/crd/bases/)")
        .isEqualTo(crd);
  }

  @Test
  void chartVersionsAndDefaultImageFollowTheParentPom() {
    String version = InstallFiles.pomProperty("infera.image.tag");
    Map<String, Object> chart = InstallFiles.document("charts/infera-operator/Chart.yaml");
    assertThat(chart).containsEntry("appVersion", version).containsEntry("version", version);
    Map<String, Object> image =
        InstallFiles.map(InstallFiles.document("charts/infera-operator/values.yaml"), "image");
    assertThat(image)
        .containsEntry("registry", InstallFiles.pomProperty("infera.image.registry"))
        .containsEntry("repository", "infera-operator")
        .containsEntry("tag", "");
  }

  @Test
  @SuppressWarnings("unchecked")
  void kustomizeImageFollowsTheParentPom() {
    List<Object> images =
        InstallFiles.list(InstallFiles.document("config/manager/kustomization.yaml"), "images");
    assertThat(images).hasSize(1);
    Map<String, Object> image = (Map<String, Object>) images.get(0);
    assertThat(image)
        .containsEntry("name", "infera-operator")
        .containsEntry(
            "newName", InstallFiles.pomProperty("infera.image.registry") + "/infera-operator")
        .containsEntry("newTag", InstallFiles.pomProperty("infera.image.tag"));
  }
}
