package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.config.PolicyName;
import io.infera.sim.sched.EngineConfig;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ArmTest {

  @Test
  void allIsEveryPolicyTheOracleHitMaxAndTheSweep() {
    List<Arm> arms = Arm.parse("all");
    assertThat(arms)
        .extracting(Arm::name)
        .containsExactly(
            "kv-aware",
            "approx-prefix",
            "least-loaded",
            "round-robin",
            "oracle",
            "hit-max",
            "kv-aware@0.5",
            "kv-aware@1",
            "kv-aware@2",
            "kv-aware@4",
            "kv-aware@8",
            "kv-aware@16",
            "kv-aware@32");
    assertThat(arms.get(0).overlapWeight()).isNull();
    assertThat(arms.get(6).overlapWeight()).isEqualTo(0.5);
    assertThat(arms.get(5).isHitMax()).isTrue();
    assertThat(arms.get(5).usesTrueCaches()).isTrue();
    assertThat(arms.get(4).usesTrueCaches()).isTrue();
    assertThat(arms.get(6).usesTrueCaches()).isFalse();
  }

  @ParameterizedTest
  @CsvSource({
    "kv-aware@4, kv-aware@4, 4.0",
    "kv-aware@4.0, kv-aware@4, 4.0",
    "kv-aware@0, kv-aware@0, 0.0",
    "kv-aware@2.5, kv-aware@2.5, 2.5",
    " kv-aware@1e1 , kv-aware@10, 10.0"
  })
  void parsesAFixedWeight(String text, String name, double weight) {
    Arm a = Arm.parse(text).get(0);
    assertThat(a.name()).isEqualTo(name);
    assertThat(a.overlapWeight()).isEqualTo(weight);
    assertThat(a.policy()).isEqualTo(PolicyName.KV_AWARE);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "kv-aware@",
        "kv-aware@x",
        "kv-aware@-0.5",
        "kv-aware@NaN",
        "kv-aware@Infinity",
        "kv-aware@1e400",
        "round-robin@2",
        "sweep,kv-aware@8",
        "kv-aware,kv-aware",
        " , ",
      })
  void refusesBadArms(String text) {
    assertThatThrownBy(() -> Arm.parse(text)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aSweepArmKeepsItsWeightWhateverTheFleetsWeight() {
    FleetSpec fleet = new FleetSpec(2, 10, 16, EngineConfig.defaults(), 2.0, 1.0);
    assertThat(Arm.fixedWeight(8).policyConfig(fleet).overlapWeight()).isEqualTo(8.0);
    assertThat(Arm.fixedWeight(8).policyConfig(fleet).name()).isEqualTo(PolicyName.KV_AWARE);
    assertThat(Arm.policy(PolicyName.KV_AWARE).policyConfig(fleet).overlapWeight()).isEqualTo(1.0);
    assertThat(Arm.policy(PolicyName.ROUND_ROBIN).policyConfig(fleet).name())
        .isEqualTo(PolicyName.ROUND_ROBIN);
    assertThatThrownBy(() -> new Arm("x", PolicyName.ROUND_ROBIN, 2.0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Arm.fixedWeight(-1)).hasMessageContaining("overlapWeight");
  }
}
