package io.infera.operator.desired;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.infera.operator.testing.Fixtures;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every container of Infera's own images (JVMs: temporary files, the tokenizer's native library
 * unpacked under /tmp) that runs on a read-only root file system gets an emptyDir at /tmp. The e2e
 * module runs the sim sample's pods this way; this check covers every sample.
 */
class WritableTmpTest {

  @ParameterizedTest
  @ValueSource(
      strings = {"sim.yaml", "vllm-mixed.yaml", "vllm-pd.yaml", "sglang-pd.yaml", "atom-pd.yaml"})
  void readOnlyRootsOfInferaImagesHaveAWritableTmp(String sample) {
    BuildResult built = DesiredFleet.build(Fixtures.parseSample(sample));
    assertThat(built).isInstanceOf(BuildResult.Built.class);
    int checked = 0;
    for (HasMetadata o : ((BuildResult.Built) built).fleet().all()) {
      PodSpec pod = podSpec(o);
      if (pod == null) {
        continue;
      }
      for (Container c : pod.getContainers()) {
        boolean readOnly =
            c.getSecurityContext() != null
                && Boolean.TRUE.equals(c.getSecurityContext().getReadOnlyRootFilesystem());
        if (!readOnly || !c.getImage().contains("/infera-")) {
          continue;
        }
        checked++;
        VolumeMount tmp =
            c.getVolumeMounts().stream()
                .filter(m -> m.getMountPath().equals("/tmp"))
                .findFirst()
                .orElse(null);
        String where = sample + ": " + o.getMetadata().getName() + "/" + c.getName();
        assertThat(tmp).as(where + " has a read-only root and no /tmp").isNotNull();
        assertThat(tmp.getReadOnly()).as(where).isNotEqualTo(Boolean.TRUE);
        Volume v =
            pod.getVolumes().stream()
                .filter(x -> x.getName().equals(tmp.getName()))
                .findFirst()
                .orElseThrow();
        assertThat(v.getEmptyDir()).as(where + ": /tmp is an emptyDir").isNotNull();
      }
    }
    // Routers and relays in every sample, the engine too with engine: sim.
    assertThat(checked).isGreaterThanOrEqualTo(sample.equals("sim.yaml") ? 3 : 2);
  }

  private static PodSpec podSpec(HasMetadata o) {
    if (o instanceof Deployment d) {
      return d.getSpec().getTemplate().getSpec();
    }
    if (o instanceof StatefulSet s) {
      return s.getSpec().getTemplate().getSpec();
    }
    return null;
  }
}
