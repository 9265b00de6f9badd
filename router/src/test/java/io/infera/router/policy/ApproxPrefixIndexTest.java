package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.Role;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ApproxPrefixIndexTest {

  private final AtomicLong now = new AtomicLong();
  private final Worker a = Worker.of("a", Role.MIXED);
  private final Worker b = Worker.of("b", Role.MIXED);

  @Test
  void remembersRoutedPrefixesUntilTheyExpire() {
    ApproxPrefixIndex idx = new ApproxPrefixIndex(1000, 100, now::get);
    idx.record(a.id(), new long[] {1, 2, 3});
    Overlap o = idx.match(new long[] {1, 2, 3, 4}, List.of(a, b));
    assertThat(o.hits(a.id())).isEqualTo(3);
    assertThat(o.hits(b.id())).isZero();
    assertThat(idx.match(new long[] {2, 3}, List.of(a)).hits(a.id()))
        .as("leading run only")
        .isEqualTo(2);
    assertThat(idx.match(new long[] {9, 1}, List.of(a)).hits(a.id())).isZero();
    now.set(1001);
    assertThat(idx.match(new long[] {1, 2, 3}, List.of(a)).hits(a.id())).isZero();
  }

  @Test
  void capacityEvictsTheLeastRecentlyUsed() {
    ApproxPrefixIndex idx = new ApproxPrefixIndex(1000, 3, now::get);
    idx.record(a.id(), new long[] {1, 2, 3});
    idx.record(a.id(), new long[] {7});
    assertThat(idx.size(a.id())).isEqualTo(3);
    assertThat(idx.match(new long[] {1}, List.of(a)).hits(a.id())).isZero();
    idx.forget(a.id());
    assertThat(idx.size(a.id())).isZero();
  }
}
