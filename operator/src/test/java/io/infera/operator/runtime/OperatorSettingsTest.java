package io.infera.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OperatorSettingsTest {

  @Test
  void productionDefaults() {
    OperatorSettings s = OperatorSettings.defaults();
    assertThat(s.serverSideApply()).isTrue();
    assertThat(s.namespaces()).isEmpty();
    assertThat(s.leaderElection()).isEmpty();
    assertThat(s.routerStatusTimeout()).isLessThanOrEqualTo(Duration.ofSeconds(5));
    assertThat(s.withServerSideApply(false).serverSideApply()).isFalse();
    assertThat(s.withServerSideApply(false).resync()).isEqualTo(s.resync());
  }

  @Test
  void invalidValuesNameTheOption() {
    OperatorSettings d = OperatorSettings.defaults();
    assertThatThrownBy(() -> d.withResync(Duration.ZERO)).hasMessageContaining("resync");
    assertThatThrownBy(() -> d.withRouterStatus("x", Duration.ofSeconds(1)))
        .hasMessageContaining("router status URL template 'x'");
    assertThatThrownBy(() -> d.withRouterStatus(d.routerStatusUrl(), Duration.ofMillis(-1)))
        .hasMessageContaining("router status timeout");
    assertThatThrownBy(() -> d.withReconcileThreads(0)).hasMessageContaining("reconcile threads");
    assertThatThrownBy(() -> d.withNamespaces(Set.of(" "))).hasMessageContaining("namespace");
    assertThatThrownBy(
            () -> d.withLeaderElection(Optional.of(new OperatorSettings.LeaderElection("", null))))
        .hasMessageContaining("lease name");
  }
}
