package io.infera.router.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.kv.WorkerId;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EventSubjectsTest {

  @Test
  void subjectsCarryThePoolAndTheWorkerAsUnpaddedBase64Url() {
    WorkerId pod = WorkerId.of("demo-decode-7d9f-x2.ns");
    String s = EventSubjects.subject("infera.kv.events", "decode", pod, 3);
    assertThat(s).isEqualTo("infera.kv.events.decode.ZGVtby1kZWNvZGUtN2Q5Zi14Mi5ucw.3");
    assertThat(EventSubjects.parse("infera.kv.events", s))
        .isEqualTo(new EventSubjects.Source("decode", pod, 3));
    assertThat(NatsKeys.snapshotKey("decode", pod, 3))
        .isEqualTo("decode.ZGVtby1kZWNvZGUtN2Q5Zi14Mi5ucw.3");
    assertThat(EventSubjects.wildcard("infera.kv.events")).isEqualTo("infera.kv.events.>");
    assertThat(EventSubjects.poolWildcard("infera.kv.events", "decode"))
        .isEqualTo("infera.kv.events.decode.>");
    assertThat(NatsKeys.poolKeySubjects("infera_kv_snapshots", "decode"))
        .isEqualTo("$KV.infera_kv_snapshots.decode.>");
    assertThat(EventSubjects.loadSubject("infera.kv.events")).isEqualTo("infera.load");
    assertThat(EventSubjects.loadSubject("kv")).isEqualTo("kv.load");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "other.p.abc.0",
        "infera.kv.events",
        "infera.kv.events.",
        "infera.kv.events.abc",
        "infera.kv.events.abc.0",
        "infera.kv.events.p.abc.",
        "infera.kv.events.p..0",
        "infera.kv.events..abc.0",
        "infera.kv.events.p.abc.x",
        "infera.kv.events.p.abc.-1",
        "infera.kv.events.p.abc.0.extra",
        "infera.kv.events.p.a+b.0",
        "infera.kv.events.p*.abc.0",
        "infera.kv.events.>.abc.0",
        "infera.kv.events.p.abc.99999999999"
      })
  void malformedSubjectsAreRejectedWithTheSubjectInTheMessage(String subject) {
    assertThatThrownBy(() -> EventSubjects.parse("infera.kv.events", subject))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("subject");
  }

  @Test
  void aPoolIsOneSubjectTokenOfAtMost63Characters() {
    assertThat(EventSubjects.validPool("a".repeat(63))).isTrue();
    assertThat(EventSubjects.validPool("a".repeat(64))).isFalse();
    for (String bad : new String[] {null, "", "a.b", "a b", "*", ">", "a>", "ä"}) {
      assertThat(EventSubjects.validPool(bad)).as(bad).isFalse();
      assertThatThrownBy(() -> EventSubjects.subject("p", bad, WorkerId.of("w"), 0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("pool");
    }
  }

  @Property(tries = 2000)
  void everyPoolWorkerIdAndRankRoundTrips(
      @ForAll("pools") String pool,
      @ForAll @StringLength(min = 1, max = 80) String id,
      @ForAll @IntRange(max = 1024) int rank) {
    Assume.that(!id.isBlank());
    WorkerId w = WorkerId.of(id);
    String s = EventSubjects.subject("p.q", pool, w, rank);
    assertThat(s.chars().filter(c -> c == '.').count()).isEqualTo(4);
    assertThat(EventSubjects.parse("p.q", s)).isEqualTo(new EventSubjects.Source(pool, w, rank));
  }

  @Property(tries = 5000)
  void arbitrarySubjectsParseOrThrowIllegalArgument(@ForAll @StringLength(max = 120) String tail) {
    try {
      EventSubjects.Source s = EventSubjects.parse("p", "p." + tail);
      assertThat(EventSubjects.validPool(s.pool())).isTrue();
      assertThat(s.rank()).isNotNegative();
    } catch (IllegalArgumentException expected) {
      // the only failure allowed
    }
  }

  @Provide
  Arbitrary<String> pools() {
    return Arbitraries.strings()
        .withChars("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
        .ofMinLength(1)
        .ofMaxLength(63);
  }
}
