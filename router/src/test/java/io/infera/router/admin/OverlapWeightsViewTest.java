package io.infera.router.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.router.config.Role;
import io.infera.router.policy.tuner.OverlapTuning;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code /v1/admin/status} → {@code overlap_weights}. */
class OverlapWeightsViewTest {

  @Test
  void aTunedPoolShowsItsWeightProbesAndEvidence() {
    OverlapTuning t = new OverlapTuning(PolicyConfig.tuned(PolicyName.KV_AWARE));
    t.booked("workers", Role.MIXED, 4).firstToken(12.5, true);
    List<Map<String, Object>> view = AdminViews.overlapWeights(t);
    assertThat(view).hasSize(1);
    Map<String, Object> w = view.get(0);
    assertThat(w)
        .containsEntry("pool", "workers")
        .containsEntry("role", "mixed")
        .containsEntry("mode", "auto")
        .containsEntry("weight", 8.0)
        .containsEntry("probes", List.of(4.0, 16.0))
        .containsEntry("samples", 1L)
        .containsEntry("last_difference", null);
    assertThat(w.get("decisions"))
        .isEqualTo(Map.of("up", 0L, "down", 0L, "hold", 0L, "merge", 0L, "discard", 0L));
  }

  @Test
  void aFixedPoolShowsOnlyItsWeight() {
    OverlapTuning t = new OverlapTuning(new PolicyConfig(PolicyName.KV_AWARE, 4.0, 20.0, null));
    t.booked("prefill", Role.PREFILL, 4);
    assertThat(AdminViews.overlapWeights(t))
        .containsExactly(
            Map.of("pool", "prefill", "role", "prefill", "mode", "fixed", "weight", 20.0));
  }
}
