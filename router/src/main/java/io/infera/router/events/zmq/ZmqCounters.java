package io.infera.router.events.zmq;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;

/**
 * The {@code zmq} transport's counters, written by its poller thread, read by any thread, bound as
 * {@code infera.zmq.*}.
 */
public final class ZmqCounters implements MeterBinder {

  final AtomicLong messagesReceived = new AtomicLong();
  final AtomicLong replaysRequested = new AtomicLong();
  final AtomicLong replayMessages = new AtomicLong();
  final AtomicLong replayTimeouts = new AtomicLong();
  final AtomicLong replayMalformed = new AtomicLong();
  final AtomicLong idleProbes = new AtomicLong();
  final AtomicLong probeDuplicates = new AtomicLong();
  final AtomicLong sequenceGaps = new AtomicLong();
  final AtomicLong missedMessages = new AtomicLong();
  final AtomicLong engineRestarts = new AtomicLong();
  final AtomicLong connectFailures = new AtomicLong();
  final AtomicLong errors = new AtomicLong();

  ZmqCounters() {}

  /** Messages received on SUB sockets (replayed ones not included). */
  public long messagesReceived() {
    return messagesReceived.get();
  }

  /** Replay requests sent (gaps, catch-ups after a first message or an engine restart). */
  public long replaysRequested() {
    return replaysRequested.get();
  }

  /** Messages obtained from replay sockets and delivered. */
  public long replayMessages() {
    return replayMessages.get();
  }

  /** Replay requests sent because a source was silent ({@link ZmqSettings#idleProbe}). */
  public long idleProbes() {
    return idleProbes.get();
  }

  /** Live messages skipped because an idle probe had already replayed them. */
  public long probeDuplicates() {
    return probeDuplicates.get();
  }

  /** Replay requests that got no complete answer in time (dead or slow replay socket). */
  public long replayTimeouts() {
    return replayTimeouts.get();
  }

  /**
   * Replay requests abandoned at an answer no engine sends (an unknown frame layout, a short
   * sequence frame, sequences out of order); that source's replays then back off.
   */
  public long replayMalformed() {
    return replayMalformed.get();
  }

  /** Sequence gaps seen on SUB sockets (messages dropped by ZMQ or while disconnected). */
  public long sequenceGaps() {
    return sequenceGaps.get();
  }

  /** Sequence numbers skipped by a gap that no replay recovered: lost to the index. */
  public long missedMessages() {
    return missedMessages.get();
  }

  /** Sources whose sequence went down: the engine restarted. */
  public long engineRestarts() {
    return engineRestarts.get();
  }

  /** Endpoints that could not be connected (bad address, unresolvable host); retried. */
  public long connectFailures() {
    return connectFailures.get();
  }

  /** Unexpected exceptions caught on the poller thread (including sink failures). */
  public long errors() {
    return errors.get();
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Map<String, ToDoubleFunction<ZmqCounters>> c =
        Map.of(
            "infera.zmq.messages", ZmqCounters::messagesReceived,
            "infera.zmq.replays", ZmqCounters::replaysRequested,
            "infera.zmq.replay.messages", ZmqCounters::replayMessages,
            "infera.zmq.replay.timeouts", ZmqCounters::replayTimeouts,
            "infera.zmq.replay.malformed", ZmqCounters::replayMalformed,
            "infera.zmq.sequence.gaps", ZmqCounters::sequenceGaps,
            "infera.zmq.missed.messages", ZmqCounters::missedMessages,
            "infera.zmq.engine.restarts", ZmqCounters::engineRestarts,
            "infera.zmq.connect.failures", ZmqCounters::connectFailures,
            "infera.zmq.errors", ZmqCounters::errors);
    c.forEach((name, f) -> FunctionCounter.builder(name, this, f).register(registry));
    FunctionCounter.builder("infera.zmq.idle.probes", this, ZmqCounters::idleProbes)
        .description("replay requests sent because a source was silent")
        .register(registry);
    FunctionCounter.builder("infera.zmq.probe.duplicates", this, ZmqCounters::probeDuplicates)
        .description("live messages skipped because an idle probe had replayed them")
        .register(registry);
  }
}
