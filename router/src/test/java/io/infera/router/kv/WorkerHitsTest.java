package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** The pick's per-worker hit table against a plain map, including colliding and repeated keys. */
class WorkerHitsTest {

  private static WorkerId w(String s) {
    return WorkerId.of(s);
  }

  /** Pairs added one by one, as a match result adds each source's count; null workers skipped. */
  private static WorkerHits bestOf(WorkerId[] workers, int[] counts) {
    WorkerHits.Builder b = new WorkerHits.Builder(workers.length);
    for (int i = 0; i < workers.length; i++) {
      if (workers[i] != null) {
        b.add(workers[i], counts[i]);
      }
    }
    return b.build();
  }

  @Test
  void aWorkerWithSeveralRanksKeepsItsBestCountAndAbsentWorkersHaveNone() {
    WorkerHits h = bestOf(new WorkerId[] {w("a"), null, w("b"), w("a")}, new int[] {3, 99, 0, 7});
    assertThat(h).containsOnly(Map.entry(w("a"), 7), Map.entry(w("b"), 0));
    assertThat(h.hitsOf(w("a"))).isEqualTo(7);
    assertThat(h.hitsOf(w("c"))).isZero();
    assertThat(h.get(w("c"))).isNull();
    assertThat(h.get("a")).isNull();
    assertThat(h.containsKey(w("b"))).isTrue();
    assertThat(h.getOrDefault(w("c"), -1)).isEqualTo(-1);
  }

  @Test
  void keysWithTheSameHashCodeAreKeptApart() {
    // "Aa" and "BB" have the same String hash code, so the same WorkerId hash code.
    assertThat(w("Aa").hashCode()).isEqualTo(w("BB").hashCode());
    WorkerHits h = bestOf(new WorkerId[] {w("Aa"), w("BB")}, new int[] {1, 2});
    assertThat(h.hitsOf(w("Aa"))).isEqualTo(1);
    assertThat(h.hitsOf(w("BB"))).isEqualTo(2);
    assertThat(h).hasSize(2);
  }

  @Test
  void equalsAndHashCodeAreAMapsAndACopyOfAWorkerHitsIsItself() {
    Map<WorkerId, Integer> plain = new LinkedHashMap<>();
    plain.put(w("x"), 4);
    plain.put(w("y"), 0);
    WorkerHits h = WorkerHits.copyOf(plain);
    assertThat(h).isEqualTo(plain);
    assertThat(plain).isEqualTo(h);
    assertThat(h.hashCode()).isEqualTo(plain.hashCode());
    assertThat(WorkerHits.copyOf(h)).isSameAs(h);
    assertThat(WorkerHits.copyOf(Map.of())).isSameAs(WorkerHits.copyOf(new HashMap<>()));
    assertThat(WorkerHits.copyOf(Map.of())).isEmpty();
    assertThatThrownBy(() -> h.put(w("z"), 1)).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> h.entrySet().iterator().remove())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void badInputIsRefused() {
    assertThatThrownBy(() -> bestOf(new WorkerId[] {w("a")}, new int[] {-1}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
    Map<WorkerId, Integer> withNull = new HashMap<>();
    withNull.put(w("a"), null);
    assertThatThrownBy(() -> WorkerHits.copyOf(withNull)).isInstanceOf(NullPointerException.class);
  }

  /** Random ids (few distinct, so repeats and collisions are common) against HashMap.merge(max). */
  @Property(tries = 500)
  void agreesWithAPlainMap(
      @ForAll @Size(max = 300) int[] ids, @ForAll @IntRange(min = 1, max = 50) int distinct) {
    WorkerId[] workers = new WorkerId[ids.length];
    int[] counts = new int[ids.length];
    Map<WorkerId, Integer> ref = new HashMap<>();
    for (int i = 0; i < ids.length; i++) {
      int k = Math.floorMod(ids[i], distinct + 1);
      workers[i] = k == distinct ? null : w("worker-" + k);
      counts[i] = Math.floorMod(ids[i] >>> 8, 1000);
      if (workers[i] != null) {
        ref.merge(workers[i], counts[i], Math::max);
      }
    }
    WorkerHits h = bestOf(workers, counts);
    assertThat(h).isEqualTo(ref);
    for (int k = 0; k <= distinct; k++) {
      assertThat(h.hitsOf(w("worker-" + k))).isEqualTo(ref.getOrDefault(w("worker-" + k), 0));
    }
  }
}
