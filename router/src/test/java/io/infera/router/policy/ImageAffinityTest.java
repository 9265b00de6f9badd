package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.config.Role;
import io.infera.router.kv.WorkerId;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-worker LRU of image keys: bounded, least recently booked out first, reads pure. */
class ImageAffinityTest {

  private static final Worker A = Worker.of("a", Role.MIXED);
  private static final Worker B = Worker.of("b", Role.MIXED);

  @Test
  void aBookedKeyIsHeldByItsWorkerOnly() {
    ImageAffinity aff = new ImageAffinity(8);
    aff.booked(A.id(), new long[] {1, 2});
    assertThat(aff.held(List.of(A, B), new long[] {1, 2, 3}))
        .containsEntry(A.id(), 2)
        .doesNotContainKey(B.id());
    assertThat(aff.held(List.of(A, B), new long[] {3})).isEmpty();
    assertThat(aff.held(List.of(A, B), new long[0])).isEmpty();
  }

  @Test
  void atTheLimitEverythingIsKeptPastItTheOldestGoes() {
    ImageAffinity aff = new ImageAffinity(4);
    for (long k = 1; k <= 4; k++) {
      aff.booked(A.id(), new long[] {k});
    }
    assertThat(aff.size(A.id())).isEqualTo(4);
    assertThat(aff.held(List.of(A), new long[] {1, 2, 3, 4})).containsEntry(A.id(), 4);
    aff.booked(A.id(), new long[] {5});
    assertThat(aff.size(A.id())).isEqualTo(4);
    assertThat(aff.held(List.of(A), new long[] {1})).isEmpty();
    assertThat(aff.held(List.of(A), new long[] {2, 3, 4, 5})).containsEntry(A.id(), 4);
  }

  @Test
  void reBookingRefreshesAKeyButReadingDoesNot() {
    ImageAffinity aff = new ImageAffinity(2);
    aff.booked(A.id(), new long[] {1});
    aff.booked(A.id(), new long[] {2});
    aff.held(List.of(A), new long[] {1}); // a read: 1 stays the oldest
    aff.booked(A.id(), new long[] {3});
    assertThat(aff.held(List.of(A), new long[] {1})).isEmpty();
    aff.booked(A.id(), new long[] {2}); // re-booked: 2 is the newest now
    aff.booked(A.id(), new long[] {4});
    assertThat(aff.held(List.of(A), new long[] {2, 4})).containsEntry(A.id(), 2);
    assertThat(aff.held(List.of(A), new long[] {3})).isEmpty();
  }

  @Test
  void manyWorkersStayWithinTheirBudget() {
    ImageAffinity aff = new ImageAffinity(16);
    for (int w = 0; w < 50; w++) {
      for (long k = 0; k < 1000; k++) {
        aff.booked(WorkerId.of("w" + w), new long[] {k * 31 + w});
      }
    }
    for (int w = 0; w < 50; w++) {
      assertThat(aff.size(WorkerId.of("w" + w))).isEqualTo(16);
    }
  }

  @Test
  void aForgottenWorkerHoldsNothing() {
    ImageAffinity aff = new ImageAffinity(4);
    aff.booked(A.id(), new long[] {1});
    aff.forget(A.id());
    assertThat(aff.size(A.id())).isZero();
    assertThat(aff.held(List.of(A), new long[] {1})).isEmpty();
  }

  @Test
  void theBudgetMustBePositive() {
    assertThatThrownBy(() -> new ImageAffinity(0)).hasMessageContaining("entriesPerWorker");
    assertThat(new ImageAffinity(1).entriesPerWorker()).isEqualTo(1);
  }
}
