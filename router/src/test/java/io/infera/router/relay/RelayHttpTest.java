package io.infera.router.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.events.zmq.ZmqSettings;
import io.infera.router.json.Json;
import io.infera.router.kv.WorkerId;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The relay's /health and /metrics, on a relay publishing through a fake stream client. */
class RelayHttpTest {

  private final HttpClient client = HttpClient.newHttpClient();
  private Relay relay;
  private RelayHttp http;

  @AfterEach
  void stop() {
    if (http != null) {
      http.close();
    }
    if (relay != null) {
      relay.close();
    }
  }

  private HttpResponse<String> get(String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void healthFollowsThePublisherAndMetricsShowTheCounters() throws Exception {
    RelayOptions o =
        RelayOptions.builder("tcp://127.0.0.1:1", "nats://127.0.0.1:1", WorkerId.of("pod-7"))
            .build();
    relay = new Relay(o, new FakeStreamClient(), ZmqSettings.defaults());
    http = RelayHttp.start(relay, "127.0.0.1", 0);

    HttpResponse<String> before = get("/health");
    assertThat(before.statusCode()).isEqualTo(503);
    assertThat(((Map<?, ?>) Json.parse(before.body())).get("status")).isEqualTo("stopped");

    relay.start();
    await().atMost(Duration.ofSeconds(10)).until(relay::ready);
    HttpResponse<String> up = get("/health");
    assertThat(up.statusCode()).isEqualTo(200);
    Map<?, ?> health = (Map<?, ?>) Json.parse(up.body());
    assertThat(health.get("status")).isEqualTo("ok");
    assertThat(health.get("worker_id")).isEqualTo("pod-7");
    assertThat(health.get("ready")).isEqualTo(true);

    HttpResponse<String> metrics = get("/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.headers().firstValue("content-type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
    assertThat(metrics.body())
        .contains("# TYPE infera_relay_published_total counter\ninfera_relay_published_total 0.0\n")
        .contains("infera_relay_ready 1.0\n")
        .contains("infera_relay_nats_connected 1.0\n");
    for (String line : metrics.body().split("\n")) {
      assertThat(line)
          .matches("# (HELP|TYPE) .*|infera_relay_[a-z_]+(\\{rank=\"\\d+\"\\})? -?\\d+\\.\\d+");
    }
    assertThat(get("/nope").statusCode()).isEqualTo(404);

    relay.close();
    assertThat(get("/health").statusCode()).isEqualTo(503);
  }
}
