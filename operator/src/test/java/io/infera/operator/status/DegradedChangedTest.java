package io.infera.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.infera.operator.api.v1alpha1.Conditions;
import io.infera.operator.api.v1alpha1.InferaDeploymentStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** When a refusal is new (one Warning event per refused generation and message, not per resync). */
class DegradedChangedTest {

  private static Condition degraded(String status, String reason, String message, long gen) {
    return new ConditionBuilder()
        .withType(Conditions.DEGRADED)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .withObservedGeneration(gen)
        .withLastTransitionTime("2026-01-01T10:00:00Z")
        .build();
  }

  private static InferaDeploymentStatus status(Condition... conditions) {
    InferaDeploymentStatus s = new InferaDeploymentStatus();
    List<Condition> all = new ArrayList<>();
    all.add(
        new ConditionBuilder()
            .withType(Conditions.READY)
            .withStatus("False")
            .withReason("InvalidSpec")
            .build());
    all.addAll(List.of(conditions));
    s.setConditions(all);
    return s;
  }

  private static final InferaDeploymentStatus NEXT =
      status(degraded("True", "InvalidSpec", "spec.pools[0].args: bad", 3));

  record Case(String name, InferaDeploymentStatus previous, boolean changed) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    Condition later = degraded("True", "InvalidSpec", "spec.pools[0].args: bad", 3);
    later.setLastTransitionTime("2026-01-01T11:00:00Z");
    return Stream.of(
        new Case("first status", null, true),
        new Case("no Degraded condition yet", status(), true),
        new Case(
            "the same refusal",
            status(degraded("True", "InvalidSpec", "spec.pools[0].args: bad", 3)),
            false),
        new Case("only the transition time differs", status(later), false),
        new Case(
            "was not degraded",
            status(degraded("False", "InvalidSpec", "spec.pools[0].args: bad", 3)),
            true),
        new Case(
            "another reason",
            status(degraded("True", "RolloutStalled", "spec.pools[0].args: bad", 3)),
            true),
        new Case(
            "another message",
            status(degraded("True", "InvalidSpec", "spec.model: missing", 3)),
            true),
        new Case(
            "an older generation",
            status(degraded("True", "InvalidSpec", "spec.pools[0].args: bad", 2)),
            true));
  }

  @ParameterizedTest
  @MethodSource("cases")
  void degradedChanged(Case c) {
    assertThat(StatusAggregator.degradedChanged(c.previous(), NEXT)).isEqualTo(c.changed());
  }
}
