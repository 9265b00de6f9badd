package io.infera.router.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.WorkerId;
import io.infera.router.nats.RelayProtocol;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RelayRankTest {

  private static final RelayOptions OPTIONS =
      RelayOptions.builder("tcp://127.0.0.1:1", "nats://127.0.0.1:1", WorkerId.of("w"))
          .snapshotEveryEvents(100)
          .snapshotEvery(Duration.ofSeconds(5))
          .snapshotMinInterval(Duration.ofSeconds(1))
          .build();

  @ParameterizedTest(name = "changed {0}, resync {1}, {2} ms and {3} events since → due {4}")
  @CsvSource({
    "true, false, 1000, 100, true",
    "true, false, 5000, 0, true",
    "true, false, 4999, 99, false",
    "true, false, 999, 1000, false",
    "false, false, 9000, 1000, false",
    "true, true, 9000, 1000, false",
  })
  void aPeriodicSnapshotIsDueAfterEnoughEventsOrTimeButNotTooOften(
      boolean changed, boolean resync, long sinceMs, long events, boolean due) {
    RelayRank r = new RelayRank(0, "s", 0);
    r.changed = changed;
    r.resyncPending = resync;
    r.eventsSinceSnapshot = events;
    assertThat(r.snapshotDue(Duration.ofMillis(sinceMs).toNanos(), OPTIONS)).isEqualTo(due);
  }

  @Test
  void takingASnapshotStartsTheScheduleOver() {
    RelayRank r = new RelayRank(0, "s", 0);
    r.changed = true;
    r.eventsSinceSnapshot = 500;
    long now = Duration.ofSeconds(10).toNanos();
    r.snapshotTaken(now);
    assertThat(r.changed).isFalse();
    assertThat(r.eventsSinceSnapshot).isZero();
    r.changed = true;
    assertThat(r.snapshotDue(now + Duration.ofSeconds(4).toNanos(), OPTIONS)).isFalse();
    assertThat(r.snapshotDue(now + Duration.ofSeconds(5).toNanos(), OPTIONS)).isTrue();
  }

  @Test
  void anOverflowReasonWinsOverAnEarlierOneAndAResyncForgetsItsSnapshot() {
    RelayRank r = new RelayRank(0, "s", 0);
    r.markResync(RelayProtocol.REASON_REORDER, RelayProtocol.REASON_OVERFLOW);
    r.resyncSnapshotId = 7;
    r.markResync(RelayProtocol.REASON_OVERFLOW, RelayProtocol.REASON_OVERFLOW);
    assertThat(r.resyncReason).isEqualTo(RelayProtocol.REASON_OVERFLOW);
    assertThat(r.resyncSnapshotId).isZero();
    r.markResync(RelayProtocol.REASON_REORDER, RelayProtocol.REASON_OVERFLOW);
    assertThat(r.resyncReason).isEqualTo(RelayProtocol.REASON_OVERFLOW);
    assertThat(r.resyncPending).isTrue();
  }
}
