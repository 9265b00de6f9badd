package io.infera.router.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ParityCheckTest {

  @ParameterizedTest
  @CsvSource({
    "'', '', -1",
    "'1 2 3', '1 2 3', -1",
    "'1 2 3', '1 9 3', 1",
    "'1 2 3', '1 2', 2",
    "'1 2', '1 2 3', 2",
    "'', '5', 0",
    "'7', '8', 0"
  })
  void firstDifference(String a, String b, int expected) {
    assertThat(ParityCheck.firstDifference(ids(a), ids(b))).isEqualTo(expected);
  }

  @Property(tries = 500)
  void firstDifferenceIsWhereTheListsStopAgreeing(@ForAll int[] a, @ForAll int[] b) {
    int d = ParityCheck.firstDifference(a, b);
    if (d < 0) {
      assertThat(a).isEqualTo(b);
      return;
    }
    assertThat(Arrays.copyOf(a, Math.min(d, a.length)))
        .isEqualTo(Arrays.copyOf(b, Math.min(d, b.length)));
    assertThat(d == a.length || d == b.length || a[d] != b[d]).isTrue();
    assertThat(ParityCheck.firstDifference(a, a)).isEqualTo(-1);
  }

  @Test
  void equalAnswersMatch() {
    WorkerParity v = ParityCheck.verdict(cases("1 2 3", "4 5"), cases("1 2 3", "4 5"), 42);
    assertThat(v.status()).isEqualTo(ParityStatus.MATCH);
    assertThat(v.divergence()).isNull();
    assertThat(v.variant()).isZero();
    assertThat(v.cases()).allMatch(CaseResult::matches);
    assertThat(v.checkedAtMillis()).isEqualTo(42);
    assertThat(v.distrusts(true)).isFalse();
    assertThat(v.distrusts(false)).isFalse();
  }

  @Test
  void aChatThatDiffersIsATemplateDivergenceTrustedForText() {
    WorkerParity v = ParityCheck.verdict(cases("1 2 3", "4 5"), cases("1 7 3 8", "4 5"), 1);
    assertThat(v.status()).isEqualTo(ParityStatus.DIVERGED);
    assertThat(v.divergence()).isEqualTo(Divergence.TEMPLATE);
    assertThat(v.detail()).contains("chat_a: differs at token 1 (router 3, engine 4)");
    assertThat(v.distrusts(true)).isTrue();
    assertThat(v.distrusts(false)).isFalse();
    assertThat(v.variant()).isNotZero();
  }

  @Test
  void aPlainPromptThatDiffersIsATokenizerDivergence() {
    WorkerParity v = ParityCheck.verdict(cases("1 2 3", "4 5"), cases("1 2 3", "4 6"), 1);
    assertThat(v.divergence()).isEqualTo(Divergence.TOKENIZER);
    assertThat(v.distrusts(false)).isTrue();
    assertThat(v.detail()).contains("tokenizes plain text differently").contains("text: differs");
  }

  @Test
  void workersThatAnswerAlikeShareAVariantOthersDoNot() {
    long x = ParityCheck.verdict(cases("1 2", "3"), cases("9 2", "3"), 1).variant();
    long y = ParityCheck.verdict(cases("1 2", "3"), cases("9 2", "3"), 2).variant();
    long z = ParityCheck.verdict(cases("1 2", "3"), cases("8 2", "3"), 3).variant();
    assertThat(x).isEqualTo(y).isNotEqualTo(z);
  }

  @Test
  void aMissingAnswerIsAnError() {
    Map<String, int[]> engine = new LinkedHashMap<>();
    engine.put("chat_a", ids("1"));
    assertThatThrownBy(() -> ParityCheck.verdict(cases("1", "2"), engine, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("text");
  }

  @Test
  void onlyFailuresAreNotCompared() {
    assertThat(ParityCheck.notCompared(ParityStatus.FAILED, "timeout", 5).status())
        .isEqualTo(ParityStatus.FAILED);
    assertThatThrownBy(() -> ParityCheck.notCompared(ParityStatus.MATCH, "x", 5))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** A chat case and the plain-text case. */
  static Map<String, int[]> cases(String chat, String text) {
    Map<String, int[]> m = new LinkedHashMap<>();
    m.put("chat_a", ids(chat));
    m.put(ProbeCase.TEXT, ids(text));
    return m;
  }

  static int[] ids(String s) {
    return s.isBlank()
        ? new int[0]
        : Arrays.stream(s.trim().split(" ")).mapToInt(Integer::parseInt).toArray();
  }
}
