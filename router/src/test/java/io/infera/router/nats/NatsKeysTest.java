package io.infera.router.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.kv.WorkerId;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Snapshot keys name the same source as event subjects. */
class NatsKeysTest {

  @Test
  void aSnapshotKeyNamesTheSameSourceAsItsSubject() {
    WorkerId pod = WorkerId.of("vllm-decode-7d9f-x2");
    String key = NatsKeys.snapshotKey("decode", pod, 2);
    assertThat(key).startsWith("decode.");
    assertThat(NatsKeys.parseKey(key)).isEqualTo(new EventSubjects.Source("decode", pod, 2));
    assertThat(EventSubjects.parse("p", "p." + key)).isEqualTo(NatsKeys.parseKey(key));
  }

  @Property
  void everyWorkerAndRankRoundTripsThroughItsKey(
      @ForAll @StringLength(min = 1, max = 60) String worker,
      @ForAll @IntRange(min = 0, max = 1024) int rank) {
    net.jqwik.api.Assume.that(!worker.isBlank());
    WorkerId id = WorkerId.of(worker);
    assertThat(NatsKeys.parseKey(NatsKeys.snapshotKey("pool-1", id, rank)))
        .isEqualTo(new EventSubjects.Source("pool-1", id, rank));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "abc",
        "abc.0",
        "p.abc.",
        "p..0",
        ".abc.0",
        "p.abc.x",
        "p.abc.-1",
        "p.a+b.0",
        "p.abc.0.1"
      })
  void malformedKeysAreRejectedNamingTheKey(String key) {
    assertThatThrownBy(() -> NatsKeys.parseKey(key))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("snapshot key '" + key + "'");
  }
}
