package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The demand one request adds: tokens × n, saturating; exact only when counted and text-only. */
class InputTokensTest {

  @Test
  void demandIsTokensTimesN() {
    assertThat(new InputTokens(1000, 3, true, false).demand()).isEqualTo(3000);
    assertThat(new InputTokens(0, 7, true, false).demand()).isZero();
  }

  @Test
  void aHugeNSaturatesAtTheCap() {
    assertThat(new InputTokens(1L << 30, Integer.MAX_VALUE, true, false).demand())
        .isEqualTo(InputTokens.MAX_DEMAND);
    assertThat(new InputTokens(Long.MAX_VALUE, 1, true, false).demand())
        .isEqualTo(InputTokens.MAX_DEMAND);
    assertThat(new InputTokens(InputTokens.MAX_DEMAND, 1, true, false).demand())
        .isEqualTo(InputTokens.MAX_DEMAND);
  }

  @Test
  void exactMeansCountedAndTextOnly() {
    assertThat(new InputTokens(5, 1, true, false).label()).isEqualTo("exact");
    assertThat(new InputTokens(5, 1, true, true).label()).isEqualTo("estimated");
    assertThat(new InputTokens(5, 1, false, false).label()).isEqualTo("estimated");
    assertThat(new InputTokens(5, 2, false, true).counted(9))
        .isEqualTo(new InputTokens(9, 2, true, true));
  }

  @Test
  void invalidValuesAreRefused() {
    assertThatThrownBy(() -> new InputTokens(-1, 1, true, false))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new InputTokens(1, 0, true, false))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
