package io.infera.router.events.nats;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.SourceId;
import io.infera.router.kv.WorkerId;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Events of undiscovered workers: bounded by count, bytes and age; taken in stream order. */
class NatsHoldTest {

  private final AtomicLong clock = new AtomicLong();
  private static final SourceId A0 = SourceId.of("a", 0);
  private static final SourceId A1 = SourceId.of("a", 1);
  private static final SourceId B0 = SourceId.of("b", 0);

  private NatsHold hold(int messages, long bytes, Duration age) {
    return new NatsHold(messages, bytes, age, clock::get);
  }

  @Test
  void aWorkerTakesItsOwnEventsInStreamOrderAndLeavesTheOthers() {
    NatsHold h = hold(100, 1 << 20, Duration.ofSeconds(30));
    h.add(A0, "p", 1, 0, new byte[] {1}, 0);
    h.add(B0, "p", 2, 0, new byte[] {2}, 0);
    h.add(A1, "p", 3, 5, new byte[] {3}, 0);
    h.add(A0, "p", 4, 1, new byte[] {4}, 0);
    assertThat(h.take(WorkerId.of("a")))
        .extracting(NatsHold.Held::streamSeq)
        .containsExactly(1L, 3L, 4L);
    assertThat(h.size()).isEqualTo(1);
    assertThat(h.bytes()).isEqualTo(1);
    assertThat(h.take(WorkerId.of("a"))).isEmpty();
    assertThat(h.take(WorkerId.of("b"))).extracting(NatsHold.Held::source).containsExactly(B0);
    assertThat(h.dropped()).isZero();
  }

  @Test
  void theOldestGoFirstOverTheMessageBound() {
    NatsHold h = hold(3, 1 << 20, Duration.ofSeconds(30));
    for (long seq = 1; seq <= 5; seq++) {
      h.add(A0, "p", seq, seq, new byte[] {0}, 0);
    }
    assertThat(h.dropped()).isEqualTo(2);
    assertThat(h.take(WorkerId.of("a")))
        .extracting(NatsHold.Held::streamSeq)
        .containsExactly(3L, 4L, 5L);
  }

  @Test
  void theOldestGoFirstOverTheByteBoundAndAnOversizedMessageIsNotHeld() {
    NatsHold h = hold(100, 10, Duration.ofSeconds(30));
    h.add(A0, "p", 1, 0, new byte[4], 0);
    h.add(A0, "p", 2, 1, new byte[4], 0);
    h.add(A0, "p", 3, 2, new byte[4], 0);
    assertThat(h.bytes()).isEqualTo(8);
    assertThat(h.dropped()).isEqualTo(1);
    h.add(A0, "p", 4, 3, new byte[11], 0);
    assertThat(h.dropped()).isEqualTo(2);
    assertThat(h.take(WorkerId.of("a")))
        .extracting(NatsHold.Held::streamSeq)
        .containsExactly(2L, 3L);
  }

  @Test
  void eventsOlderThanTheMaxAgeAreDropped() {
    NatsHold h = hold(100, 1 << 20, Duration.ofSeconds(30));
    h.add(A0, "p", 1, 0, new byte[1], 0);
    clock.set(TimeUnit.SECONDS.toNanos(20));
    h.add(A0, "p", 2, 1, new byte[1], 0);
    clock.set(TimeUnit.SECONDS.toNanos(31));
    h.expire();
    assertThat(h.dropped()).isEqualTo(1);
    assertThat(h.size()).isEqualTo(1);
    clock.set(TimeUnit.SECONDS.toNanos(51));
    assertThat(h.take(WorkerId.of("a"))).isEmpty();
    assertThat(h.dropped()).isEqualTo(2);
  }

  @Test
  void aWorkerThatLeftHasItsEventsDroppedAndCounted() {
    NatsHold h = hold(100, 1 << 20, Duration.ofSeconds(30));
    h.add(A0, "p", 1, 0, new byte[1], 0);
    h.add(B0, "p", 2, 0, new byte[1], 0);
    assertThat(h.drop(WorkerId.of("a"))).isEqualTo(1);
    assertThat(h.dropped()).isEqualTo(1);
    assertThat(h.size()).isEqualTo(1);
  }

  @Test
  void aZeroBoundHoldsNothing() {
    NatsHold h = hold(0, 1 << 20, Duration.ofSeconds(30));
    h.add(A0, "p", 1, 0, new byte[1], 0);
    assertThat(h.size()).isZero();
    assertThat(h.dropped()).isEqualTo(1);
  }
}
