package io.infera.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.testing.Fixtures;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class KubernetesEventsTest {

  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00.123456789Z");

  @Test
  void aWarningAboutTheInferaDeployment() {
    InferaDeployment idep = Fixtures.parseSample("sim.yaml");
    idep.getMetadata().setGeneration(4L);
    Event e =
        KubernetesEvents.event(
            idep, "Warning", "InvalidSpec", "pool 'a' sets --block-size", NOW, "op-0");
    assertThat(e.getMetadata().getName()).matches("sim\\.[0-9a-f]{16}");
    assertThat(e.getMetadata().getNamespace()).isEqualTo("default");
    assertThat(e.getInvolvedObject().getKind()).isEqualTo("InferaDeployment");
    assertThat(e.getInvolvedObject().getApiVersion()).isEqualTo("infera.io/v1alpha1");
    assertThat(e.getInvolvedObject().getName()).isEqualTo("sim");
    assertThat(e.getInvolvedObject().getUid()).isEqualTo(Fixtures.UID);
    assertThat(e.getType()).isEqualTo("Warning");
    assertThat(e.getReason()).isEqualTo("InvalidSpec");
    assertThat(e.getMessage()).isEqualTo("pool 'a' sets --block-size");
    assertThat(e.getFirstTimestamp()).isEqualTo("2026-03-01T12:00:00Z");
    assertThat(e.getEventTime().getTime()).isEqualTo("2026-03-01T12:00:00.123456Z");
    assertThat(e.getSource().getComponent()).isEqualTo("infera-operator");
    assertThat(e.getReportingInstance()).isEqualTo("op-0");
  }

  @Test
  void theNameIsOnePerGenerationAndMessage() {
    InferaDeployment idep = Fixtures.parseSample("sim.yaml");
    idep.getMetadata().setGeneration(4L);
    String a =
        KubernetesEvents.event(idep, "Warning", "InvalidSpec", "m", NOW, "x")
            .getMetadata()
            .getName();
    String again =
        KubernetesEvents.event(idep, "Warning", "InvalidSpec", "m", NOW.plusSeconds(9), "y")
            .getMetadata()
            .getName();
    String other =
        KubernetesEvents.event(idep, "Warning", "InvalidSpec", "m2", NOW, "x")
            .getMetadata()
            .getName();
    idep.getMetadata().setGeneration(5L);
    String next =
        KubernetesEvents.event(idep, "Warning", "InvalidSpec", "m", NOW, "x")
            .getMetadata()
            .getName();
    assertThat(again).isEqualTo(a);
    assertThat(other).isNotEqualTo(a);
    assertThat(next).isNotEqualTo(a);
  }

  @Test
  void longMessagesAreCut() {
    InferaDeployment idep = Fixtures.parseSample("sim.yaml");
    Event e = KubernetesEvents.event(idep, "Warning", "InvalidSpec", "x".repeat(5000), NOW, "x");
    assertThat(e.getMessage()).hasSize(1024);
  }
}
