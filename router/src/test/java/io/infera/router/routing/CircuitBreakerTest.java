package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {

  private final AtomicLong now = new AtomicLong(1_000);
  private final CircuitBreaker b = new CircuitBreaker(3, 100, 400, now::get);

  @Test
  void opensAfterConsecutiveFaultsAndSuccessResetsTheCount() {
    b.onFault();
    b.onFault();
    b.onSuccess();
    b.onFault();
    b.onFault();
    assertThat(b.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    b.onFault();
    assertThat(b.state()).isEqualTo(CircuitBreaker.State.OPEN);
    assertThat(b.isAvailable()).isFalse();
    assertThat(b.tryAcquire()).isFalse();
  }

  @Test
  void halfOpenLetsOneProbeThroughAndCooldownDoublesUpToTheCap() {
    for (int i = 0; i < 3; i++) {
      b.onFault();
    }
    now.addAndGet(100);
    assertThat(b.state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
    assertThat(b.tryAcquire()).isTrue();
    assertThat(b.tryAcquire()).as("one probe at a time").isFalse();
    b.onFault();
    assertThat(b.state()).isEqualTo(CircuitBreaker.State.OPEN);
    assertThat(b.cooldownMs()).isEqualTo(200);
    now.addAndGet(199);
    assertThat(b.state()).isEqualTo(CircuitBreaker.State.OPEN);
    now.addAndGet(1);
    assertThat(b.tryAcquire()).isTrue();
    b.onFault();
    assertThat(b.cooldownMs()).isEqualTo(400);
    now.addAndGet(400);
    assertThat(b.tryAcquire()).isTrue();
    b.onFault();
    assertThat(b.cooldownMs()).as("capped").isEqualTo(400);
    now.addAndGet(400);
    assertThat(b.tryAcquire()).isTrue();
    b.onSuccess();
    assertThat(b.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    assertThat(b.cooldownMs()).isEqualTo(100);
  }
}
