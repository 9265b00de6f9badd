package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OncePerWorkerTest {

  @Test
  void eachWorkerIsFirstOnce() {
    OncePerWorker once = new OncePerWorker();
    assertThat(once.first("a")).isTrue();
    assertThat(once.first("a")).isFalse();
    assertThat(once.first("b")).isTrue();
  }

  @Test
  void atItsLimitItStartsOverInsteadOfGrowing() {
    OncePerWorker once = new OncePerWorker();
    for (int i = 0; i < OncePerWorker.MAX; i++) {
      assertThat(once.first("w" + i)).isTrue();
    }
    assertThat(once.first("w0")).isFalse(); // at the limit: still remembered
    assertThat(once.first("past")).isTrue(); // past it: started over
    assertThat(once.first("w0")).isTrue();
  }
}
