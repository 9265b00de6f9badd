package io.infera.router.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.IndexLimits;
import io.infera.router.kv.PrefixIndex;
import org.junit.jupiter.api.Test;

/** The start-up check of the index cap against the heap, at and past the rule. */
class IndexSizingCheckTest {

  @Test
  void theDefaultCapFitsTheOperatorsDefaultHeap() {
    assertThat(IndexSizing.check(IndexLimits.defaults(), (long) (0.70 * (1L << 30)))).isTrue();
  }

  @Test
  void aHeapExactlyAtTheRuleFitsAndOneByteLessDoesNot() {
    IndexLimits l = new IndexLimits(1000, 5_000_000, 6, 3);
    long need = PrefixIndex.routerHeapBytes(5_000_000, 64);
    assertThat(IndexSizing.check(l, need)).isTrue();
    assertThat(IndexSizing.check(l, need - 1)).isFalse();
  }
}
