package io.infera.router.events.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.infera.router.config.RouterConfig;
import io.infera.router.events.TransportStatus;
import io.infera.router.kv.WorkerId;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code nats} transport's status as the admin layer renders it: the keys, their order and
 * values of {@code GET /v1/admin/status}'s {@code nats} object and per-source fields.
 */
class NatsTransportStatusTest {

  private static final RouterConfig.Nats CONFIG =
      new RouterConfig.Nats("nats://127.0.0.1:1", "S", "p", "b", true);

  @Test
  void anUnstartedTransportReportsItsFieldsInTheAdminOrder() {
    try (NatsTransport t = new NatsTransport(CONFIG, 16)) {
      TransportStatus s = t.status();
      assertThat(s.name()).isEqualTo("nats");
      assertThat(s.warm()).isFalse();
      assertThat(s.notReadyReason()).isEqualTo("nats transport not running");
      assertThat(s.fields().keySet())
          .containsExactly(
              "url",
              "stream",
              "connected",
              "caught_up",
              "warm",
              "not_warm_reason",
              "processed_stream_seq",
              "stream_first_seq",
              "stream_last_seq",
              "start_target_seq",
              "lag_messages",
              "held_messages",
              "messages",
              "bytes",
              "garbage_subjects",
              "foreign_pool",
              "bad_headers",
              "duplicates",
              "covered_skipped",
              "resync_markers",
              "resyncs",
              "snapshots_seeded",
              "snapshots_bad",
              "snapshots_stale",
              "reconnects",
              "consumer_restarts",
              "lost_messages",
              "undiscovered_dropped",
              "errors",
              "thread_crashes",
              "thread_problem");
      assertThat(s.fields())
          .contains(
              entry("url", "nats://127.0.0.1:1"),
              entry("stream", "S"),
              entry("connected", false),
              entry("not_warm_reason", "nats transport not running"),
              entry("start_target_seq", -1L),
              entry("held_messages", 0));
      assertThat(s.sources().known()).isEmpty();
    }
  }

  @ParameterizedTest(name = "transport degraded {0} ({1}), index degraded {2} → {3}, {4}")
  @CsvSource(
      nullValues = "none",
      value = {
        "false, none, false, healthy, none",
        "false, none, true, degraded, engine_gap",
        "true, events_lost, false, degraded, events_lost",
        "true, resync_failed, true, degraded, resync_failed",
      })
  void aKnownSourceShowsHealthThenItsStreamPosition(
      boolean degraded,
      String reason,
      boolean indexDegraded,
      String health,
      String expectedReason) {
    NatsSourceStatus st =
        new NatsSourceStatus(WorkerId.of("w"), 0, 7, 42, 3, 1, 5, 0.25, degraded, reason, -1, null);
    TransportStatus.Sources sources =
        new TransportStatus.Sources(Map.of(), NatsSourceStatus.UNSEEN);
    Map<String, Object> f = sources.render(st.toSource(), indexDegraded);
    assertThat(f.keySet())
        .containsExactly(
            "health",
            "degraded_reason",
            "last_engine_seq",
            "last_stream_seq",
            "stream_lag_messages",
            "stream_lag_seconds",
            "stream_messages",
            "covered_by_snapshot",
            "snapshot_stream_seq",
            "snapshot_age_seconds");
    assertThat(f.get("health")).isEqualTo(health);
    assertThat(f.get("degraded_reason")).isEqualTo(expectedReason);
    assertThat(f)
        .contains(
            entry("last_engine_seq", 7L),
            entry("last_stream_seq", 42L),
            entry("stream_lag_messages", 5L),
            entry("stream_lag_seconds", 0.25),
            entry("stream_messages", 3L),
            entry("covered_by_snapshot", 1L),
            entry("snapshot_stream_seq", null),
            entry("snapshot_age_seconds", null));
  }

  @ParameterizedTest(name = "index degraded {0} → {1}, {2}")
  @CsvSource(
      nullValues = "none",
      value = {"false, healthy, none", "true, degraded, engine_gap"})
  void aSourceTheStreamHasNotSeenHasEmptyPositions(
      boolean indexDegraded, String health, String reason) {
    TransportStatus.Sources sources =
        new TransportStatus.Sources(Map.of(), NatsSourceStatus.UNSEEN);
    Map<String, Object> f = sources.render(null, indexDegraded);
    assertThat(f)
        .containsExactly(
            entry("health", health),
            entry("degraded_reason", reason),
            entry("last_engine_seq", null),
            entry("last_stream_seq", null),
            entry("stream_lag_messages", null),
            entry("stream_lag_seconds", null),
            entry("stream_messages", 0L),
            entry("covered_by_snapshot", 0L),
            entry("snapshot_stream_seq", null),
            entry("snapshot_age_seconds", null));
  }
}
