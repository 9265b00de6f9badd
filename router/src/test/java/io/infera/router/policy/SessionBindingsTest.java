package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.kv.WorkerId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The bounded binding table: LRU at and past its cap, idle expiry, merges, refreshes. */
class SessionBindingsTest {

  private final AtomicLong now = new AtomicLong(1_000);

  private static SessionBinding first(String w, long version, long origin) {
    return new SessionBinding(WorkerId.of(w), -1, null, -1, version, origin);
  }

  @Test
  void theCapHoldsAtItsLimitAndEvictsTheLeastRecentlyUsedPastIt() {
    SessionBindings t = new SessionBindings(3, 60_000, now::get);
    for (long s = 1; s <= 3; s++) {
      t.put(s, first("w" + s, 1, 7));
      now.addAndGet(10);
    }
    assertThat(t.size()).isEqualTo(3);
    assertThat(t.stats().evictedCapacity()).isZero();
    assertThat(t.use(1)).isNotNull(); // 1 is now the most recently used; 2 the least
    t.put(4, first("w4", 1, 7));
    assertThat(t.size()).isEqualTo(3);
    assertThat(t.peek(2)).isNull();
    assertThat(t.peek(1)).isNotNull();
    assertThat(t.peek(3)).isNotNull();
    assertThat(t.peek(4)).isNotNull();
    assertThat(t.stats().evictedCapacity()).isEqualTo(1);
  }

  @Test
  void aMillionSessionsNeverGrowTheTablePastItsCap() {
    SessionBindings t = new SessionBindings(1000, 60_000, now::get);
    for (long s = 0; s < 1_000_000; s++) {
      t.put(s, first("w", 1, 1));
    }
    assertThat(t.size()).isEqualTo(1000);
    assertThat(t.stats().evictedCapacity()).isEqualTo(999_000);
    assertThat(t.peek(999_999)).isNotNull();
    assertThat(t.peek(998_999)).isNull();
  }

  @Test
  void aBindingIdleForTheTtlIsGoneAndUseRestartsItsIdleTime() {
    SessionBindings t = new SessionBindings(10, 1_000, now::get);
    t.put(1, first("a", 1, 1));
    t.put(2, first("b", 1, 1));
    now.addAndGet(999);
    assertThat(t.use(1)).isNotNull(); // restarts 1's idle time
    now.addAndGet(1);
    assertThat(t.peek(2)).isNull(); // exactly the TTL: gone
    assertThat(t.use(2)).isNull();
    assertThat(t.peek(1)).isNotNull();
    assertThat(t.stats().evictedTtl()).isEqualTo(1);
    now.addAndGet(1_000);
    t.put(3, first("c", 1, 1)); // a store sweeps idle bindings from the old end
    assertThat(t.size()).isEqualTo(1);
    assertThat(t.stats().evictedTtl()).isEqualTo(2);
  }

  @Test
  void peekChangesNothing() {
    SessionBindings t = new SessionBindings(2, 60_000, now::get);
    t.put(1, first("a", 1, 1));
    t.put(2, first("b", 1, 1));
    assertThat(t.peek(1)).isNotNull(); // not a use: 1 stays the least recently used
    t.put(3, first("c", 1, 1));
    assertThat(t.peek(1)).isNull();
    assertThat(t.peek(2)).isNotNull();
  }

  @Test
  void aRemoteBindingWinsByVersionThenByTheLowerOrigin() {
    SessionBindings t = new SessionBindings(10, 60_000, now::get);
    t.put(1, first("a", 2, 50));
    assertThat(t.merge(1, first("b", 1, 10))).isEqualTo(SessionBindings.Merge.STALE);
    assertThat(t.peek(1).first()).isEqualTo(WorkerId.of("a"));
    assertThat(t.merge(1, first("c", 2, 60))).isEqualTo(SessionBindings.Merge.STALE);
    assertThat(t.merge(1, first("d", 2, 40))).isEqualTo(SessionBindings.Merge.APPLIED);
    assertThat(t.peek(1).first()).isEqualTo(WorkerId.of("d"));
    assertThat(t.merge(1, first("d", 2, 40))).isEqualTo(SessionBindings.Merge.REFRESHED);
    assertThat(t.merge(1, first("e", 3, 99))).isEqualTo(SessionBindings.Merge.APPLIED);
    assertThat(t.merge(2, first("f", 1, 99))).isEqualTo(SessionBindings.Merge.APPLIED);
    // Origins compare unsigned, the same on every replica.
    t.put(3, first("g", 1, 5));
    assertThat(t.merge(3, first("h", 1, -1L))).isEqualTo(SessionBindings.Merge.STALE);
  }

  @Test
  void twoTablesConvergeWhateverOrderTheyHearConcurrentBindingsIn() {
    SessionBindings a = new SessionBindings(10, 60_000, now::get);
    SessionBindings b = new SessionBindings(10, 60_000, now::get);
    SessionBinding fromA = first("wa", 1, 0xa);
    SessionBinding fromB = first("wb", 1, 0xb);
    a.put(9, fromA);
    b.put(9, fromB);
    a.merge(9, fromB);
    b.merge(9, fromA);
    assertThat(a.peek(9)).isEqualTo(b.peek(9)).isEqualTo(fromA);
  }

  @Test
  void putsAreAnnouncedAndMergesAreNot() {
    SessionBindings t = new SessionBindings(10, 60_000, now::get);
    List<Long> announced = new ArrayList<>();
    t.share((s, b) -> announced.add(s));
    t.put(1, first("a", 1, 1));
    t.merge(2, first("b", 1, 1));
    assertThat(announced).containsExactly(1L);
    t.share(null);
    t.put(3, first("c", 1, 1));
    assertThat(announced).containsExactly(1L);
  }

  @Test
  void aBindingInUseIsQueuedForARefreshAtMostOncePerInterval() {
    SessionBindings t = new SessionBindings(10, 30_000, now::get); // refresh every 10 s
    t.share((s, b) -> {});
    t.put(1, first("a", 1, 1));
    t.use(1);
    assertThat(t.drainRefreshes(10)).isEmpty(); // just announced
    now.addAndGet(10_000);
    t.use(1);
    t.use(1);
    assertThat(t.drainRefreshes(10))
        .containsExactly(new SessionBindings.Entry(1, first("a", 1, 1)));
    assertThat(t.drainRefreshes(10)).isEmpty();
    now.addAndGet(5_000);
    t.use(1);
    assertThat(t.drainRefreshes(10)).isEmpty();
  }

  @Test
  void theRefreshQueueIsBounded() {
    SessionBindings t = new SessionBindings(20_000, 30_000, now::get);
    t.share((s, b) -> {});
    int n = SessionBindings.MAX_PENDING_REFRESHES + 5;
    for (long s = 0; s < n; s++) {
      t.put(s, first("a", 1, 1));
    }
    now.addAndGet(10_000);
    for (long s = 0; s < n; s++) {
      t.use(s);
    }
    assertThat(t.stats().refreshesDropped()).isEqualTo(5);
    int drained = 0;
    for (List<SessionBindings.Entry> e = t.drainRefreshes(512);
        !e.isEmpty();
        e = t.drainRefreshes(512)) {
      assertThat(e.size()).isLessThanOrEqualTo(512);
      drained += e.size();
    }
    assertThat(drained).isEqualTo(SessionBindings.MAX_PENDING_REFRESHES);
  }

  @Test
  void bindingsAreValidated() {
    assertThatThrownBy(() -> new SessionBinding(null, -1, null, -1, 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SessionBinding(WorkerId.of("a"), 65_536, null, -1, 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SessionBinding(null, 0, WorkerId.of("d"), -1, 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SessionBinding(WorkerId.of("a"), -1, null, -1, 0, 1))
        .isInstanceOf(IllegalArgumentException.class);
    SessionBinding top =
        new SessionBinding(WorkerId.of("a"), -1, null, -1, SessionBinding.MAX_VERSION, 1);
    assertThat(top.withFirst(WorkerId.of("b"), -1, 2).version())
        .isEqualTo(SessionBinding.MAX_VERSION);
  }
}
