package io.infera.sim.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Invariants every workload keeps. */
final class WorkloadAssertions {

  private WorkloadAssertions() {}

  static void assertWellFormed(Workload w) {
    List<Session> sessions = w.sessions();
    assertThat(sessions).isNotEmpty();
    Set<String> ids = new HashSet<>();
    double previousStart = 0;
    int requests = 0;
    for (Session s : sessions) {
      assertThat(ids.add(s.id())).as("unique id %s", s.id()).isTrue();
      assertThat(s.startMs()).isGreaterThanOrEqualTo(previousStart);
      previousStart = s.startMs();
      assertSameContent(s.systemTokens(), s.systemText());
      assertThat(s.turns().get(0).thinkMs()).isZero();
      for (Turn t : s.turns()) {
        assertSameContent(t.userTokens(), t.userText());
        assertThat(t.userTokens()).isNotEmpty();
        requests++;
      }
    }
    assertThat(w.stats().sessions()).isEqualTo(sessions.size());
    assertThat(w.stats().requests()).isEqualTo(requests);
    assertThat(w.stats().distinctPrefixTokens()).isBetween(1L, w.stats().promptTokens());
  }

  static void assertSameContent(int[] tokens, String text) {
    for (int t : tokens) {
      assertThat(Vocabulary.contains(t)).as("token %d in [1000, 3000)", t).isTrue();
    }
    assertThat(text).isEqualTo(Vocabulary.text(tokens));
    assertThat(Vocabulary.tokens(text)).containsExactly(tokens);
  }

  /** Length of the common prefix of two arrays. */
  static int commonPrefix(int[] a, int[] b) {
    int n = Math.min(a.length, b.length);
    int i = 0;
    while (i < n && a[i] == b[i]) {
      i++;
    }
    return i;
  }
}
