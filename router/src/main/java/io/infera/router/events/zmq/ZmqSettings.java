package io.infera.router.events.zmq;

import java.time.Duration;
import java.util.Objects;

/**
 * Tuning of the {@code zmq} transport, all defaulted by {@link #defaults()}.
 *
 * @param pollInterval longest wait for a message; bounds how late a worker change is applied
 * @param reconnectInterval first ZMQ reconnect delay after a lost or refused connection
 * @param reconnectIntervalMax ZMQ reconnect back-off cap (also the retry delay of an endpoint whose
 *     connect failed, e.g. a host name that does not resolve yet)
 * @param handshakeInterval a connection whose ZMTP handshake has not completed by then is dropped
 *     and redialled. Short on purpose: jeromq 0.6.0's connecting side sometimes never starts the
 *     handshake (zeromq/jeromq#1022), and the 30 s ZMQ default would leave such a source deaf for
 *     that long
 * @param receiveHighWaterMark messages buffered per SUB socket before ZMQ drops (seen as a gap)
 * @param replayTimeout longest time one replay request may hold the poller
 * @param replayBackoff after a timed-out replay, that source's gaps stay unfilled this long
 * @param settleTime time after connect after which a silent source counts as warm
 * @param catchUpOnFirstMessage on the first sequenced message of a source (and after an engine
 *     restart), also replay the batches before it that are still in the engine's buffer
 * @param idleProbe a subscribed source with a replay socket that has been silent this long is asked
 *     for what follows its last sequence (zero: never). What a SUB socket misses before its
 *     subscription reaches the engine (ZMQ's slow joiner), or a dropped last batch, is otherwise
 *     only noticed at the engine's next batch, which may not come for a long time
 * @param bindSub SUB sockets bind their endpoint instead of connecting to it: the relay beside an
 *     engine whose KV-event endpoint is a loopback address, which vLLM and SGLang then connect to
 *     (they bind only a wildcard, ipc or inproc endpoint); replay sockets always connect
 */
public record ZmqSettings(
    Duration pollInterval,
    Duration reconnectInterval,
    Duration reconnectIntervalMax,
    Duration handshakeInterval,
    int receiveHighWaterMark,
    Duration replayTimeout,
    Duration replayBackoff,
    Duration settleTime,
    boolean catchUpOnFirstMessage,
    Duration idleProbe,
    boolean bindSub) {

  public ZmqSettings {
    positive(pollInterval, "pollInterval");
    positive(reconnectInterval, "reconnectInterval");
    positive(reconnectIntervalMax, "reconnectIntervalMax");
    positive(handshakeInterval, "handshakeInterval");
    positive(replayTimeout, "replayTimeout");
    nonNegative(idleProbe, "idleProbe");
    nonNegative(replayBackoff, "replayBackoff");
    nonNegative(settleTime, "settleTime");
    if (reconnectIntervalMax.compareTo(reconnectInterval) < 0) {
      throw new IllegalArgumentException("reconnectIntervalMax must be >= reconnectInterval");
    }
    if (receiveHighWaterMark < 0) {
      throw new IllegalArgumentException("receiveHighWaterMark must be >= 0 (0 = unbounded)");
    }
  }

  /**
   * 50 ms poll, reconnect 100 ms … 5 s, 1 s handshake, 100k messages per socket, 2 s replay bound,
   * 5 s replay back-off, 300 ms settle time, catch-up on, idle probe after 1 s, SUB sockets
   * connect.
   */
  public static ZmqSettings defaults() {
    return new ZmqSettings(
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofSeconds(5),
        Duration.ofSeconds(1),
        100_000,
        Duration.ofSeconds(2),
        Duration.ofSeconds(5),
        Duration.ofMillis(300),
        true,
        Duration.ofSeconds(1),
        false);
  }

  /** These settings with {@link #bindSub()} set to {@code bind}. */
  public ZmqSettings withBindSub(boolean bind) {
    return new ZmqSettings(
        pollInterval,
        reconnectInterval,
        reconnectIntervalMax,
        handshakeInterval,
        receiveHighWaterMark,
        replayTimeout,
        replayBackoff,
        settleTime,
        catchUpOnFirstMessage,
        idleProbe,
        bind);
  }

  private static void positive(Duration d, String name) {
    nonNegative(d, name);
    if (d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, got " + d);
    }
  }

  private static void nonNegative(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative, got " + d);
    }
  }
}
