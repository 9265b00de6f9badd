package io.infera.router.parity;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.parity.ParitySchedule.State;
import io.infera.router.parity.ParitySchedule.Trigger;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ParityScheduleTest {

  private static final long INTERVAL = 600_000;
  private static final String URL = "http://10.0.0.1:8000";
  private final ParitySchedule schedule = new ParitySchedule(INTERVAL);

  private Optional<Trigger> at(State s, long now, long resets, String url) {
    return schedule.decide(s, now, resets, url);
  }

  @Test
  void aNewWorkerIsProbedAtOnce() {
    assertThat(at(State.NEW, 0, 0, URL)).contains(Trigger.DISCOVERY);
    assertThat(at(State.NEW, 0, 7, URL)).contains(Trigger.DISCOVERY);
  }

  @Test
  void neverTwoProbesOfOneWorkerAtOnce() {
    State s = State.NEW.started(0, 0, URL);
    assertThat(at(s, INTERVAL * 5, 3, "http://other")).isEmpty();
  }

  @Test
  void aRestartProbesAgainOnceTheMinimumGapPassed() {
    State s = State.NEW.started(1_000, 2, URL).ended(false);
    assertThat(at(s, 2_000, 3, URL)).isEmpty(); // within MIN_GAP_MS
    assertThat(at(s, 1_000 + ParitySchedule.MIN_GAP_MS, 3, URL)).contains(Trigger.RESTART);
    assertThat(at(s, 1_000 + ParitySchedule.MIN_GAP_MS, 2, "http://10.0.0.2:8000"))
        .contains(Trigger.RESTART); // a new pod under the same name
    assertThat(at(s, 1_000 + ParitySchedule.MIN_GAP_MS, 2, URL)).isEmpty();
  }

  @Test
  void periodicAtTheIntervalAndNotBefore() {
    State s = State.NEW.started(0, 0, URL).ended(false);
    assertThat(at(s, INTERVAL - 1, 0, URL)).isEmpty();
    assertThat(at(s, INTERVAL, 0, URL)).contains(Trigger.PERIODIC);
  }

  @Test
  void aFailedProbeIsRetriedSoonerThanTheInterval() {
    State s = State.NEW.started(0, 0, URL).ended(true);
    assertThat(at(s, ParitySchedule.RETRY_MS - 1, 0, URL)).isEmpty();
    assertThat(at(s, ParitySchedule.RETRY_MS, 0, URL)).contains(Trigger.RETRY);
    // A short interval caps the retry delay, but never below the minimum gap.
    ParitySchedule fast = new ParitySchedule(2_000);
    State f = State.NEW.started(0, 0, URL).ended(true);
    assertThat(fast.decide(f, 2_000, 0, URL)).isEmpty();
    assertThat(fast.decide(f, ParitySchedule.MIN_GAP_MS, 0, URL)).contains(Trigger.PERIODIC);
  }

  @Test
  void aStartRemembersResetsAndUrl() {
    State s = State.NEW.started(10, 4, URL);
    assertThat(s.inFlight()).isTrue();
    assertThat(s.resets()).isEqualTo(4);
    assertThat(s.url()).isEqualTo(URL);
    assertThat(s.ended(true).failed()).isTrue();
    assertThat(s.ended(true).inFlight()).isFalse();
  }
}
