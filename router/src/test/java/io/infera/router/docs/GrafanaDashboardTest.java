package io.infera.router.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.json.Json;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * deploy/grafana/infera-router.json is importable as shipped: its uid, unique panel ids, every
 * target on the dashboard's datasource variable, and the panels operators look at first. That every
 * metric it queries is served is {@link ServedMetricsIT}'s.
 */
class GrafanaDashboardTest {

  @Test
  void dashboardIsWellFormedAndShowsHitRatioTtftDecisionsEventLagAndWorkerLoad() throws Exception {
    assertThat(ServedMetricsIT.dashboard())
        .contains(
            "infera_routing_predicted_hit_ratio_sum",
            "infera_routing_predicted_hit_ratio_count",
            "infera_upstream_ttfb_seconds_sum",
            "infera_upstream_ttfb_seconds_count",
            "infera_routing_decision_seconds_count",
            "infera_kv_event_lag_seconds",
            "infera_worker_active_blocks",
            "infera_worker_inflight");
    Map<?, ?> d =
        (Map<?, ?>)
            Json.parse(
                Files.readString(
                    DocumentedConfigKeysTest.repo().resolve("deploy/grafana/infera-router.json")));
    assertThat(d.get("uid")).isEqualTo("infera-router");
    Set<Object> ids = new TreeSet<>();
    for (Object p : (List<?>) d.get("panels")) {
      Map<?, ?> panel = (Map<?, ?>) p;
      assertThat(ids.add(panel.get("id"))).as("unique panel id %s", panel.get("id")).isTrue();
      Object targets = panel.get("targets");
      for (Object t : targets == null ? List.of() : (List<?>) targets) {
        assertThat(((Map<?, ?>) ((Map<?, ?>) t).get("datasource")).get("uid"))
            .isEqualTo("${datasource}");
      }
    }
  }
}
