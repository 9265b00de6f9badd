package io.infera.router.relay;

import static org.awaitility.Awaitility.await;

import io.infera.router.events.zmq.ZmqSettings;
import io.infera.router.kv.WorkerId;
import java.time.Duration;

/** The Prometheus text of a started relay (fake stream client), for tests outside this package. */
public final class RelayMetricsScrape {

  private RelayMetricsScrape() {}

  /** Starts a relay on a silent engine address, waits until it is ready, returns its /metrics. */
  public static String scrape() {
    RelayOptions o =
        RelayOptions.builder("tcp://127.0.0.1:1", "nats://127.0.0.1:1", WorkerId.of("pod-0"))
            .build();
    try (Relay relay = new Relay(o, new FakeStreamClient(), ZmqSettings.defaults())) {
      relay.start();
      await().atMost(Duration.ofSeconds(10)).until(relay::ready);
      return RelayHttp.prometheus(relay);
    }
  }
}
