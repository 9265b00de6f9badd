package io.infera.sim.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class VocabularyTest {

  @Test
  void twoThousandDistinctWordsWithoutWhitespace() {
    Set<String> words = new HashSet<>();
    for (int id = Vocabulary.FIRST_ID; id < Vocabulary.END_ID; id++) {
      String w = Vocabulary.word(id);
      assertThat(w).matches("[a-z]+");
      assertThat(Vocabulary.tokenId(w)).isEqualTo(id);
      words.add(w);
    }
    assertThat(words).hasSize(2000);
    assertThat(Vocabulary.END_ID).isEqualTo(3000);
  }

  @Test
  void frozenListStartsWithTheMostCommonWords() {
    // Changing the list changes every seeded workload: this pins it.
    assertThat(Vocabulary.word(1000)).isEqualTo("the");
    assertThat(Vocabulary.word(1001)).isEqualTo("and");
    assertThat(Vocabulary.word(2999)).isEqualTo("trim");
  }

  @Test
  void textAndTokensAreInverse() {
    int[] tokens = {1000, 2999, 1500, 1000};
    String text = Vocabulary.text(tokens);
    assertThat(text).isEqualTo("the trim " + Vocabulary.word(1500) + " the");
    assertThat(Vocabulary.tokens(text)).containsExactly(tokens);
    assertThat(Vocabulary.tokens("  the \n and\t")).containsExactly(1000, 1001);
    assertThat(Vocabulary.text(new int[0])).isEmpty();
    assertThat(Vocabulary.tokens("   ")).isEmpty();
  }

  @Test
  void outsideTheVocabularyIsRefused() {
    assertThatThrownBy(() -> Vocabulary.word(999)).hasMessageContaining("999");
    assertThatThrownBy(() -> Vocabulary.word(3000)).hasMessageContaining("3000");
    assertThatThrownBy(() -> Vocabulary.tokens("the zzzqx")).hasMessageContaining("zzzqx");
    assertThat(Vocabulary.tokenId("zzzqx")).isEqualTo(-1);
    assertThat(Vocabulary.contains(999)).isFalse();
    assertThat(Vocabulary.contains(1000)).isTrue();
  }

  @Test
  void taggedPiecesDifferInTheirFirstTokens() {
    int[] a = Vocabulary.tagged(new Rng(1), 8, 7);
    int[] b = Vocabulary.tagged(new Rng(1), 8, 8);
    int[] c = Vocabulary.tagged(new Rng(1), 8, 7 + 2000);
    assertThat(a[0]).isNotEqualTo(b[0]);
    assertThat(a[0]).isEqualTo(c[0]);
    assertThat(a[1]).isNotEqualTo(c[1]);
    assertThat(Vocabulary.tagged(new Rng(1), 1, 5)).containsExactly(1005);
    assertThat(Vocabulary.tagged(new Rng(1), 0, 5)).isEmpty();
  }
}
