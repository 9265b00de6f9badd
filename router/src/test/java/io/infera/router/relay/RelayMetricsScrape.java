package io.infera.router.relay;

import static org.awaitility.Awaitility.await;

import io.infera.router.events.zmq.ZmqSettings;
import io.infera.router.kv.WorkerId;
import java.time.Duration;

/** The Prometheus text of a started relay (fake stream client), for tests outside this package. */
public final class RelayMetricsScrape {

  private RelayMetricsScrape() {}

  /**
   * Starts a relay on a silent engine address (a free loopback port: the relay binds loopback
   * endpoints), waits until it is ready and its engine source is up (the per-rank gauges exist only
   * then), returns its /metrics.
   */
  public static String scrape() {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    RelayOptions o =
        RelayOptions.builder("tcp://127.0.0.1:" + port, "nats://127.0.0.1:1", WorkerId.of("pod-0"))
            .build();
    try (Relay relay = new Relay(o, new FakeStreamClient(), ZmqSettings.defaults())) {
      relay.start();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> relay.ready() && !relay.zmqSources().isEmpty());
      return RelayHttp.prometheus(relay);
    }
  }
}
