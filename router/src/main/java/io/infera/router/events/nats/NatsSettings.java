package io.infera.router.events.nats;

import io.infera.router.nats.JetStreamSetup;
import java.time.Duration;
import java.util.Objects;

/**
 * Tuning of the {@code nats} transport, all defaulted by {@link #defaults()}.
 *
 * @param pollInterval longest wait for a message; bounds how late a worker change is applied
 * @param reconnectWait first back-off after a failed connect or session (and jnats reconnects)
 * @param reconnectWaitMax back-off cap
 * @param requestTimeout JetStream API and snapshot reads
 * @param streamCheckInterval how often the stream's state is read (lag, retention, stalls)
 * @param stallTimeout the consumer is recreated when it delivers nothing this long while the stream
 *     has unread messages
 * @param holdMessages events of undiscovered workers held at most
 * @param holdBytes payload bytes of undiscovered workers held at most
 * @param holdTime how long such events are held
 * @param consumerBatch messages the ordered consumer asks for at once
 * @param streamLimits the stream's limits when the router creates it
 */
public record NatsSettings(
    Duration pollInterval,
    Duration reconnectWait,
    Duration reconnectWaitMax,
    Duration requestTimeout,
    Duration streamCheckInterval,
    Duration stallTimeout,
    int holdMessages,
    long holdBytes,
    Duration holdTime,
    int consumerBatch,
    JetStreamSetup.Limits streamLimits) {

  public NatsSettings {
    positive(pollInterval, "pollInterval");
    positive(reconnectWait, "reconnectWait");
    positive(reconnectWaitMax, "reconnectWaitMax");
    positive(requestTimeout, "requestTimeout");
    positive(streamCheckInterval, "streamCheckInterval");
    positive(stallTimeout, "stallTimeout");
    positive(holdTime, "holdTime");
    Objects.requireNonNull(streamLimits, "streamLimits");
    if (reconnectWaitMax.compareTo(reconnectWait) < 0) {
      throw new IllegalArgumentException("reconnectWaitMax must be >= reconnectWait");
    }
    if (holdMessages < 0 || holdBytes < 0) {
      throw new IllegalArgumentException("holdMessages and holdBytes must be >= 0");
    }
    if (consumerBatch < 1) {
      throw new IllegalArgumentException("consumerBatch must be >= 1");
    }
  }

  /**
   * 100 ms poll, back-off 250 ms … 10 s, 10 s requests, stream check every 2 s, stall after 10 s,
   * hold 10,000 messages / 64 MiB / 30 s, batches of 1,000, default stream limits.
   */
  public static NatsSettings defaults() {
    return new NatsSettings(
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofSeconds(10),
        Duration.ofSeconds(10),
        Duration.ofSeconds(2),
        Duration.ofSeconds(10),
        10_000,
        64L << 20,
        Duration.ofSeconds(30),
        1_000,
        JetStreamSetup.Limits.defaults());
  }

  public NatsSettings withHold(int messages, Duration time) {
    return new NatsSettings(
        pollInterval,
        reconnectWait,
        reconnectWaitMax,
        requestTimeout,
        streamCheckInterval,
        stallTimeout,
        messages,
        holdBytes,
        time,
        consumerBatch,
        streamLimits);
  }

  private static void positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, got " + d);
    }
  }
}
