package io.infera.router.accuracy;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.RouterConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The comparison, its windows and the condition they support. */
class IndexAccuracyTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private static final RouterConfig.Index.Accuracy SETTINGS =
      new RouterConfig.Index.Accuracy(100, 60, 10, 0.8, 0.8);

  private IndexAccuracy accuracy() {
    return new IndexAccuracy(SETTINGS, now::get);
  }

  private static CachedTokens tokens(long n) {
    return new CachedTokens.Reported(n);
  }

  @Test
  void unknownUntilEnoughAnswersReport() {
    IndexAccuracy a = accuracy();
    assertThat(a.condition().status()).isEqualTo(IndexAccurateCondition.Status.UNKNOWN);
    assertThat(a.condition().reason()).isEqualTo("TooFewSamples");
    for (int i = 0; i < 50; i++) {
      a.record("p", 10, 20, 16, CachedTokens.NO_DETAILS);
    }
    assertThat(a.condition().reason()).isEqualTo("NotReported");
    for (int i = 0; i < 9; i++) {
      a.record("p", 10, 20, 16, tokens(160));
    }
    assertThat(a.condition().status()).isEqualTo(IndexAccurateCondition.Status.UNKNOWN);
    a.record("p", 10, 20, 16, tokens(160));
    assertThat(a.condition().status()).isEqualTo(IndexAccurateCondition.Status.TRUE);
    assertThat(a.condition().reason()).isEqualTo("Accurate");
  }

  @Test
  void phantomHitsAndMissedHitsAreFalse() {
    IndexAccuracy phantom = accuracy();
    for (int i = 0; i < 20; i++) {
      phantom.record("p", 10, 20, 16, tokens(16 * 5)); // predicted 10, had 5
    }
    assertThat(phantom.condition().status()).isEqualTo(IndexAccurateCondition.Status.FALSE);
    assertThat(phantom.condition().reason()).isEqualTo("PhantomHits");
    assertThat(phantom.condition().message()).contains("precision 0.500 < 0.800");

    IndexAccuracy missed = accuracy();
    for (int i = 0; i < 20; i++) {
      missed.record("p", 0, 20, 16, tokens(16 * 12)); // predicted 0, had 12
    }
    assertThat(missed.condition().reason()).isEqualTo("MissedHits");
  }

  @Test
  void reportedTokensRoundDownToBlocksAndCapAtTheRequest() {
    IndexAccuracy a = accuracy();
    for (int i = 0; i < 10; i++) {
      a.record("p", 4, 4, 16, tokens(16 * 4 + 15)); // 4.9 blocks: 4
      a.record("p", 4, 4, 16, tokens(16 * 100)); // more than the request: 4
    }
    Map<String, Object> s = a.status();
    assertThat(s.get("precision")).isEqualTo(1.0);
    assertThat(s.get("recall")).isEqualTo(1.0);
    assertThat(s.get("mean_abs_error_blocks")).isEqualTo(0.0);
  }

  @Test
  void theWindowSlidesByCountAndByAge() {
    IndexAccuracy a = accuracy();
    for (int i = 0; i < 100; i++) {
      a.record("p", 10, 20, 16, tokens(0));
    }
    assertThat(a.condition().reason()).isEqualTo("PhantomHits");
    for (int i = 0; i < 100; i++) {
      a.record("p", 10, 20, 16, tokens(160));
    }
    assertThat(a.condition().status()).isEqualTo(IndexAccurateCondition.Status.TRUE);
    now.addAndGet(61_000_000_000L);
    assertThat(a.condition().reason()).isEqualTo("TooFewSamples");
  }

  @Test
  void metersPerPool() {
    PrometheusMeterRegistry reg = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    IndexAccuracy a = accuracy();
    a.bindTo(reg);
    a.record("gpu-a", 10, 20, 16, tokens(16 * 6));
    a.record("gpu-a", 2, 20, 16, tokens(16 * 3));
    a.record("gpu-b", 2, 20, 16, CachedTokens.NO_USAGE);
    String text = reg.scrape();
    assertThat(text)
        .contains("infera_index_accuracy_blocks_total{kind=\"predicted\",pool=\"gpu-a\"} 12.0")
        .contains("infera_index_accuracy_blocks_total{kind=\"reported\",pool=\"gpu-a\"} 9.0")
        .contains("infera_index_accuracy_blocks_total{kind=\"predicted_hit\",pool=\"gpu-a\"} 8.0")
        .contains(
            "infera_index_accuracy_error_blocks_bucket{direction=\"over\",pool=\"gpu-a\",le=\"4.0\"} 1")
        .contains(
            "infera_index_accuracy_error_blocks_bucket{direction=\"under\",pool=\"gpu-a\",le=\"1.0\"} 1")
        .contains("infera_index_accuracy_unreported_total{pool=\"gpu-b\",reason=\"no_usage\"} 1.0")
        .contains("infera_index_accuracy_precision{pool=\"gpu-a\"} 0.666")
        .contains("infera_index_accuracy_condition 2.0");
  }
}
