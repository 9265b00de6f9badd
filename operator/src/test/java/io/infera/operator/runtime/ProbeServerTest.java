package io.infera.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ProbeServerTest {

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void probesFollowTheirChecksAndMetricsAreScraped() throws Exception {
    AtomicBoolean healthy = new AtomicBoolean(true);
    AtomicBoolean ready = new AtomicBoolean(false);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.counter("infera.test.things").increment(3);
    try (ProbeServer s = ProbeServer.start("127.0.0.1", 0, healthy::get, ready::get, registry)) {
      assertThat(get(s, "GET", "/healthz").statusCode()).isEqualTo(200);
      assertThat(get(s, "GET", "/readyz").statusCode()).isEqualTo(503);
      ready.set(true);
      healthy.set(false);
      assertThat(get(s, "GET", "/readyz").statusCode()).isEqualTo(200);
      assertThat(get(s, "GET", "/healthz").statusCode()).isEqualTo(503);
      HttpResponse<String> m = get(s, "GET", "/metrics");
      assertThat(m.statusCode()).isEqualTo(200);
      assertThat(m.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
      assertThat(m.body()).contains("infera_test_things_total 3.0");
      assertThat(get(s, "HEAD", "/healthz").statusCode()).isEqualTo(503);
      assertThat(get(s, "POST", "/readyz").statusCode()).isEqualTo(405);
      assertThat(get(s, "GET", "/readyz/x").statusCode()).isEqualTo(404);
      assertThat(get(s, "GET", "/").statusCode()).isEqualTo(404);
    }
  }

  @Test
  void aThrowingCheckIsNotOk() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (ProbeServer s =
        ProbeServer.start(
            "127.0.0.1",
            0,
            () -> {
              throw new IllegalStateException("boom");
            },
            () -> true,
            registry)) {
      assertThat(get(s, "GET", "/healthz").statusCode()).isEqualTo(503);
    }
  }

  private HttpResponse<String> get(ProbeServer s, String method, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
