package io.infera.router.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.kv.WorkerId;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EventSubjectsTest {

  @Test
  void subjectsCarryTheWorkerAsUnpaddedBase64Url() {
    WorkerId pod = WorkerId.of("demo-decode-7d9f-x2.ns");
    String s = EventSubjects.subject("infera.kv.events", pod, 3);
    assertThat(s).isEqualTo("infera.kv.events.ZGVtby1kZWNvZGUtN2Q5Zi14Mi5ucw.3");
    assertThat(EventSubjects.parse("infera.kv.events", s))
        .isEqualTo(new EventSubjects.Source(pod, 3));
    assertThat(NatsKeys.snapshotKey(pod, 3)).isEqualTo("ZGVtby1kZWNvZGUtN2Q5Zi14Mi5ucw.3");
    assertThat(EventSubjects.wildcard("infera.kv.events")).isEqualTo("infera.kv.events.>");
    assertThat(EventSubjects.loadSubject("infera.kv.events")).isEqualTo("infera.load");
    assertThat(EventSubjects.loadSubject("kv")).isEqualTo("kv.load");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "other.abc.0",
        "infera.kv.events",
        "infera.kv.events.",
        "infera.kv.events.abc",
        "infera.kv.events.abc.",
        "infera.kv.events..0",
        "infera.kv.events.abc.x",
        "infera.kv.events.abc.-1",
        "infera.kv.events.abc.0.extra",
        "infera.kv.events.a+b.0"
      })
  void malformedSubjectsAreRejectedWithTheSubjectInTheMessage(String subject) {
    assertThatThrownBy(() -> EventSubjects.parse("infera.kv.events", subject))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("subject");
  }

  @Property(tries = 2000)
  void everyWorkerIdAndRankRoundTrips(
      @ForAll @StringLength(min = 1, max = 80) String id, @ForAll @IntRange(max = 1024) int rank) {
    Assume.that(!id.isBlank());
    WorkerId w = WorkerId.of(id);
    String s = EventSubjects.subject("p.q", w, rank);
    assertThat(s.chars().filter(c -> c == '.').count()).isEqualTo(3);
    assertThat(EventSubjects.parse("p.q", s)).isEqualTo(new EventSubjects.Source(w, rank));
  }
}
