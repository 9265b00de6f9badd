package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SimClockTest {

  @ParameterizedTest(name = "speedup {0}: {1} wall ns = {2} sim ms; {3} sim ms = {4} wall µs")
  @CsvSource({
    "1, 1000000, 1.0, 1.0, 1000",
    "4, 1000000, 4.0, 4.0, 1000",
    "0.5, 3000000, 1.5, 10.0, 20000",
    "100, 50000, 5.0, 500.0, 5000",
  })
  void scalesWallTimeBySpeedup(
      double speedup, long wallNanos, double simMs, double span, long wallMicros) {
    AtomicLong nanos = new AtomicLong(7_000_000_000L);
    SimClock clock = new SimClock(speedup, nanos::get);
    clock.start();
    assertThat(clock.nowMs()).isZero();
    nanos.addAndGet(wallNanos);
    assertThat(clock.nowMs()).isEqualTo(simMs);
    assertThat(clock.wallMicros(span)).isEqualTo(wallMicros);
  }

  @ParameterizedTest
  @CsvSource({"0", "-1", "NaN"})
  void speedupMustBePositive(double speedup) {
    assertThatThrownBy(() -> new SimClock(speedup)).isInstanceOf(IllegalArgumentException.class);
  }
}
