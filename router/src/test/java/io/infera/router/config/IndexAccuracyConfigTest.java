package io.infera.router.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@code index.accuracy.*}: defaults, values at and past their bounds, the key named. */
class IndexAccuracyConfigTest {

  private static final String MINIMAL =
      "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
          + "discovery: {workers: [{id: w0, url: 'http://127.0.0.1:9001'}]}\n";

  private static RouterConfig.Index.Accuracy load(String accuracy) throws ConfigException {
    return ConfigLoader.parse(MINIMAL + "index: {accuracy: {" + accuracy + "}}\n")
        .index()
        .accuracy();
  }

  @Test
  void defaults() throws Exception {
    assertThat(ConfigLoader.parse(MINIMAL).index().accuracy())
        .isEqualTo(RouterConfig.Index.Accuracy.DEFAULTS);
    assertThat(RouterConfig.Index.defaults().accuracy())
        .isEqualTo(RouterConfig.Index.Accuracy.DEFAULTS);
  }

  @Test
  void readsEveryKey() throws Exception {
    assertThat(
            load(
                "window: 100, windowSeconds: 30, minSamples: 100, minPrecision: 0.95,"
                    + " minRecall: 0"))
        .isEqualTo(new RouterConfig.Index.Accuracy(100, 30, 100, 0.95, 0.0));
    assertThat(load("window: 65536, minPrecision: 1, minRecall: 1").window()).isEqualTo(65536);
  }

  @Test
  void refusesValuesPastTheirBoundsNamingTheKey() {
    assertThatThrownBy(() -> load("window: 0"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("index.accuracy.window");
    assertThatThrownBy(() -> load("window: 65537")).hasMessageContaining("index.accuracy.window");
    assertThatThrownBy(() -> load("windowSeconds: 0"))
        .hasMessageContaining("index.accuracy.windowSeconds");
    assertThatThrownBy(() -> load("window: 10, minSamples: 11"))
        .hasMessageContaining("index.accuracy.minSamples");
    assertThatThrownBy(() -> load("minPrecision: 1.01"))
        .hasMessageContaining("index.accuracy.minPrecision");
    assertThatThrownBy(() -> load("minRecall: -0.1"))
        .hasMessageContaining("index.accuracy.minRecall");
    assertThatThrownBy(() -> load("minRecall: .nan"))
        .hasMessageContaining("index.accuracy.minRecall");
    assertThatThrownBy(() -> load("minRecall: high"))
        .hasMessageContaining("index.accuracy.minRecall");
    assertThatThrownBy(() -> load("typo: 1")).hasMessageContaining("index.accuracy.typo");
  }
}
