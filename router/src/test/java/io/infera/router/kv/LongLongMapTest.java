package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LongLongMapTest {

  @ParameterizedTest
  @ValueSource(ints = {16, 1000, 100_000})
  void behavesLikeAHashMapUnderRandomOperations(int keySpace) {
    Random r = new Random(keySpace);
    LongLongMap map = new LongLongMap();
    Map<Long, Long> ref = new HashMap<>();
    for (int op = 0; op < 200_000; op++) {
      // Small sequential keys (engine hashes can be 0, 1, 2, …) and random ones.
      long key = r.nextBoolean() ? r.nextInt(keySpace) : r.nextLong() % keySpace;
      switch (r.nextInt(4)) {
        case 0, 1 -> {
          long v = r.nextLong();
          assertThat(map.put(key, v)).isEqualTo(!ref.containsKey(key));
          ref.put(key, v);
        }
        case 2 -> assertThat(map.remove(key)).isEqualTo(ref.remove(key) != null);
        default -> {
          long delta = r.nextInt(3) - 1;
          long expected = ref.getOrDefault(key, 0L) + delta;
          assertThat(map.addTo(key, delta)).isEqualTo(expected);
          if (expected == 0) {
            ref.remove(key);
          } else {
            ref.put(key, expected);
          }
        }
      }
      if (op % 997 == 0) {
        assertSame(map, ref);
      }
    }
    assertSame(map, ref);
  }

  @Test
  void zeroIsAnOrdinaryKey() {
    LongLongMap map = new LongLongMap();
    assertThat(map.containsKey(0)).isFalse();
    assertThat(map.put(0, 5)).isTrue();
    assertThat(map.get(0, -1)).isEqualTo(5);
    assertThat(map.size()).isEqualTo(1);
    assertThat(map.remove(0)).isTrue();
    assertThat(map.isEmpty()).isTrue();
  }

  @Test
  void clearEmptiesAndShrinks() {
    LongLongMap map = new LongLongMap();
    for (int i = 0; i < 10_000; i++) {
      map.put(i, i);
    }
    long big = map.tableBytes();
    map.clear();
    assertThat(map.size()).isZero();
    assertThat(map.tableBytes()).isLessThan(big / 100);
    assertThat(map.containsKey(5)).isFalse();
  }

  private static void assertSame(LongLongMap map, Map<Long, Long> ref) {
    assertThat(map.size()).isEqualTo(ref.size());
    ref.forEach((k, v) -> assertThat(map.get(k, v + 1)).isEqualTo(v));
    Map<Long, Long> seen = new HashMap<>();
    map.forEach(seen::put);
    assertThat(seen).isEqualTo(ref);
  }

  @Test
  void shrinksWhenEmptiedSoItsMemoryFollowsItsSize() {
    LongLongMap map = new LongLongMap();
    for (long k = 1; k <= 100_000; k++) {
      map.put(k, k);
    }
    int full = map.capacity();
    assertThat(full).isGreaterThan(133_000);
    for (long k = 1; k <= 99_990; k++) {
      assertThat(map.remove(k)).isTrue();
      // At a load of at least 1/4 (or the floor) after every removal.
      assertThat(map.capacity()).isLessThanOrEqualTo(Math.max(64, 4 * map.size() + 4));
    }
    assertThat(map.capacity()).isLessThanOrEqualTo(64);
    for (long k = 99_991; k <= 100_000; k++) {
      assertThat(map.get(k, -1)).isEqualTo(k);
    }
  }

  @Test
  void ensureCapacityMakesRoomInOneStep() {
    LongLongMap map = new LongLongMap();
    map.ensureCapacity(2_000);
    int sized = map.capacity();
    assertThat(sized).isGreaterThanOrEqualTo((int) Math.ceil(2_000 / 0.75));
    for (long k = 1; k <= 2_000; k++) {
      map.put(k, k);
    }
    assertThat(map.capacity()).isEqualTo(sized);
    for (long k = 2_001; k <= 2_100; k++) {
      map.put(k, k);
    }
    assertThat(map.capacity()).isGreaterThan(sized);
    map.ensureCapacity(10);
    assertThat(map.size()).isEqualTo(2_100);
    assertThat(map.get(1_000, -1)).isEqualTo(1_000);
  }

  @Test
  void removalsKeepingCapacityShrinkOnceAtTrim() {
    LongLongMap map = new LongLongMap();
    for (long k = 1; k <= 4_000; k++) {
      map.put(k, k);
    }
    int full = map.capacity();
    for (long k = 1; k <= 3_990; k++) {
      map.removeAtKeepingCapacity(map.find(k));
    }
    assertThat(map.capacity()).isEqualTo(full);
    for (long k = 3_991; k <= 4_000; k++) {
      assertThat(map.get(k, -1)).isEqualTo(k);
    }
    map.trim();
    assertThat(map.capacity()).isEqualTo(64);
    assertThat(map.size()).isEqualTo(10);
    for (long k = 3_991; k <= 4_000; k++) {
      assertThat(map.get(k, -1)).isEqualTo(k);
    }
  }
}
