package io.infera.operator.upgrade;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The golden diff of {@link UpgradeFromPreviousReleaseTest} sees every kind of change. */
class ChildrenDiffTest {

  private static final String BEFORE =
      """
      kind: ConfigMap
      metadata: {name: r}
      data:
        router.yaml: |
          model: m
          limits: {retries: 1}
        other: x
      ---
      kind: Deployment
      metadata: {name: d}
      spec:
        replicas: 1
        args: [a, b]
      ---
      kind: Service
      metadata: {name: gone}
      """;

  private static final String AFTER =
      """
      kind: ConfigMap
      metadata: {name: r}
      data:
        router.yaml: |
          model: m
          limits: {retries: 2}
          listen: {tls: true}
        other: y
      ---
      kind: Deployment
      metadata: {name: d, labels: {a: b}}
      spec:
        replicas: 1
        args: [a]
      ---
      kind: Secret
      metadata: {name: new}
      """;

  @Test
  void everyKindOfChangeIsALine() {
    assertThat(ChildrenDiff.diff("s", BEFORE, AFTER))
        .containsExactly(
            "s ConfigMap/r data.router.yaml/limits.retries: changed",
            "s ConfigMap/r data.router.yaml/listen: added",
            "s ConfigMap/r data.other: changed",
            "s Deployment/d metadata.labels: added",
            "s Deployment/d spec.args[1]: removed",
            "s Service/gone : removed",
            "s Secret/new : added");
    assertThat(ChildrenDiff.diff("s", BEFORE, BEFORE)).isEmpty();
  }

  @Test
  void deliberateLinesAreGlobsWithAReason() {
    List<ChildrenDiff.Deliberate> d =
        ChildrenDiff.deliberate(
            "# comment\n\n* Deployment/* spec.args[*]: removed # fewer args\n"
                + "sim ConfigMap/r data.other: changed # renamed\n");
    assertThat(d).hasSize(2);
    assertThat(d.get(0).matches("vllm Deployment/x-router spec.args[3]: removed")).isTrue();
    assertThat(d.get(0).matches("vllm Deployment/x-router spec.args[3]: added")).isFalse();
    assertThat(d.get(1).matches("sim ConfigMap/r data.other: changed")).isTrue();
    assertThat(d.get(1).matches("sim ConfigMap/rr data.other: changed")).isFalse();
    assertThatThrownBy(() -> ChildrenDiff.deliberate("sim ConfigMap/r data.other: changed\n"))
        .hasMessageContaining("has no reason");
    assertThatThrownBy(() -> ChildrenDiff.deliberate("sim ConfigMap/r data.other: changed # \n"))
        .hasMessageContaining("has no reason");
  }
}
