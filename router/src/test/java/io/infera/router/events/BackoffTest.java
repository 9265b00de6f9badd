package io.infera.router.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BackoffTest {

  @ParameterizedTest(name = "initial {0} ms, max {1} ms, attempt {2} → {3} ms")
  @CsvSource({
    "100, 1000, 0, 100",
    "100, 1000, 1, 100",
    "100, 1000, 2, 200",
    "100, 1000, 3, 400",
    "100, 1000, 4, 800",
    "100, 1000, 5, 1000",
    "100, 1000, 1000, 1000",
    "250, 250, 7, 250",
    "1, 10000, 63, 10000",
    "1, 10000, 2147483647, 10000",
  })
  void theNominalPauseDoublesUpToTheCap(long initial, long max, int attempt, long expectedMs) {
    Backoff b = new Backoff(Duration.ofMillis(initial), Duration.ofMillis(max), () -> 0.5);
    assertThat(b.nominalNanos(attempt)).isEqualTo(Duration.ofMillis(expectedMs).toNanos());
    // The middle of the jitter band is the nominal pause.
    assertThat(b.delayMillis(attempt)).isEqualTo(expectedMs);
  }

  @ParameterizedTest(name = "random {0} → {1} % of nominal")
  @CsvSource({"0.0, 80", "0.25, 90", "0.5, 100", "0.75, 110"})
  void jitterSpreadsTheNominalPauseOverPlusMinusTwentyPercent(double r, long percent) {
    Backoff b = new Backoff(Duration.ofMillis(1000), Duration.ofSeconds(10), () -> r);
    assertThat(b.delayMillis(1)).isEqualTo(10 * percent);
    assertThat(b.delayMillis(3)).isEqualTo(40 * percent);
    assertThat(b.delayMillis(9)).isEqualTo(100 * percent);
  }

  @Test
  void withASeededRandomEveryPauseStaysInTheBand() {
    Random seeded = new Random(42);
    Backoff b = new Backoff(Duration.ofMillis(250), Duration.ofSeconds(10), seeded::nextDouble);
    long below = 0;
    for (int attempt = 1; attempt <= 2000; attempt++) {
      long nominal = b.nominalNanos(attempt);
      long d = b.delayNanos(attempt);
      assertThat(d).isBetween((long) (nominal * 0.8), (long) (nominal * 1.2));
      below += d < nominal ? 1 : 0;
    }
    // Uniform: about half below the nominal pause, half above.
    assertThat(below).isBetween(900L, 1100L);
  }

  @Test
  void aPauseIsNeverShorterThanAMillisecond() {
    Backoff b = new Backoff(Duration.ofNanos(1000), Duration.ofNanos(1000), () -> 0.0);
    assertThat(b.delay(1)).isEqualTo(Duration.ofMillis(1));
  }

  @Test
  void boundsAreChecked() {
    assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
