package io.infera.router.events.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.events.zmq.SequenceCheck.Kind;
import io.infera.router.events.zmq.SequenceCheck.Verdict;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SequenceCheckTest {

  @ParameterizedTest(name = "last {0}, seq {1}, probed {2}..{3}, catch-up {4} → {5} fill {6}..{7}")
  @CsvSource({
    // last, seq, probedFrom, probedThrough, catchUp, kind, fillFrom, fillTo
    "5, 6, 0, -1, true, IN_ORDER, 0, 0",
    "5, 9, 0, -1, true, GAP, 6, 9",
    "5, 7, 0, -1, false, GAP, 6, 7",
    "5, 5, 0, -1, true, RESTART, 0, 5",
    "5, 2, 0, -1, true, RESTART, 0, 2",
    "5, 0, 0, -1, true, RESTART, 0, 0",
    "5, 2, 0, -1, false, RESTART, 0, 0",
    "-9223372036854775808, 0, 0, -1, true, FIRST, 0, 0",
    "-9223372036854775808, 4, 0, -1, true, FIRST, 0, 4",
    "-9223372036854775808, 4, 0, -1, false, FIRST, 0, 0",
    "5, -3, 0, -1, true, UNSEQUENCED, 0, 0",
    // An idle probe replayed 6..8: those arriving live are skipped, 9 is in order again.
    "8, 6, 6, 8, true, PROBED, 0, 0",
    "8, 8, 6, 8, true, PROBED, 0, 0",
    "8, 9, 6, 8, true, IN_ORDER, 0, 0",
    "8, 12, 6, 8, true, GAP, 9, 12",
  })
  void judgesEachSequenceAgainstTheLastOne(
      long last,
      long seq,
      long probedFrom,
      long probedThrough,
      boolean catchUp,
      Kind kind,
      long fillFrom,
      long fillTo) {
    Verdict v = SequenceCheck.check(last, seq, probedFrom, probedThrough, catchUp);
    assertThat(v.kind()).isEqualTo(kind);
    assertThat(v.fills()).isEqualTo(fillTo > fillFrom);
    if (v.fills()) {
      assertThat(v.fillFrom()).isEqualTo(fillFrom);
      assertThat(v.fillTo()).isEqualTo(fillTo);
    }
  }

  @ParameterizedTest(name = "last {0} → request from {1}, deliver from {2}")
  @CsvSource({"-9223372036854775808, 0, 0", "0, 0, 1", "41, 41, 42"})
  void anIdleProbeAsksFromTheLastSequenceAndDeliversWhatFollows(
      long last, long requestFrom, long deliverFrom) {
    assertThat(SequenceCheck.probeRequestFrom(last)).isEqualTo(requestFrom);
    assertThat(SequenceCheck.probeDeliverFrom(last)).isEqualTo(deliverFrom);
  }

  @ParameterizedTest(name = "last {0}, timed out {1}, seen {2} → restart {3}")
  @CsvSource({
    "41, false, 0, true",
    "41, false, 1, false",
    "41, true, 0, false",
    "-9223372036854775808, false, 0, false",
  })
  void aCompleteProbeAnswerWithoutTheLastSequenceMeansARestart(
      long last, boolean timedOut, int seen, boolean restart) {
    assertThat(SequenceCheck.probeShowsRestart(last, timedOut, seen)).isEqualTo(restart);
  }
}
