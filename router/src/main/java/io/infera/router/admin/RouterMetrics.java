package io.infera.router.admin;

import io.infera.router.kv.WorkerId;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The event plane's meters (transports, load sharing) and the per-worker event lag the ingest
 * reports. The registry belongs to the composition root.
 */
public final class RouterMetrics {

  private final MeterRegistry registry;
  private final Map<WorkerId, double[]> eventLag = new ConcurrentHashMap<>();

  public RouterMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Last observed event lag of a worker, or null. */
  public Double eventLagSeconds(WorkerId worker) {
    double[] l = eventLag.get(worker);
    return l == null ? null : l[0];
  }

  public void eventLag(WorkerId worker, double seconds) {
    eventLag.computeIfAbsent(worker, w -> new double[1])[0] = seconds;
  }

  /** The cell holding a worker's lag (created at 0), for its gauge. */
  public double[] eventLagCell(WorkerId worker) {
    return eventLag.computeIfAbsent(worker, w -> new double[1]);
  }

  /** Forgets a removed worker's lag. */
  public void forgetEventLag(WorkerId worker) {
    eventLag.remove(worker);
  }

  /** The ZMQ transport's counters (messages, replays, gaps, restarts, failures). */
  public void bindZmq(io.infera.router.events.ZmqTransport z) {
    Map<String, java.util.function.ToDoubleFunction<io.infera.router.events.ZmqTransport>> c =
        Map.of(
            "infera.zmq.messages", t -> t.messagesReceived(),
            "infera.zmq.replays", t -> t.replaysRequested(),
            "infera.zmq.replay.messages", t -> t.replayMessages(),
            "infera.zmq.replay.timeouts", t -> t.replayTimeouts(),
            "infera.zmq.sequence.gaps", t -> t.sequenceGaps(),
            "infera.zmq.missed.messages", t -> t.missedMessages(),
            "infera.zmq.engine.restarts", t -> t.engineRestarts(),
            "infera.zmq.connect.failures", t -> t.connectFailures(),
            "infera.zmq.errors", t -> t.errors());
    c.forEach((name, f) -> FunctionCounter.builder(name, z, f).register(registry));
    FunctionCounter.builder("infera.zmq.idle.probes", z, t -> t.idleProbes())
        .description("replay requests sent because a source was silent")
        .register(registry);
    FunctionCounter.builder("infera.zmq.probe.duplicates", z, t -> t.probeDuplicates())
        .description("live messages skipped because an idle probe had replayed them")
        .register(registry);
  }

  /** The NATS transport's counters and its stream lag. */
  public void bindNats(io.infera.router.events.NatsTransport n) {
    Map<String, java.util.function.ToDoubleFunction<io.infera.router.events.NatsTransport>> c =
        new java.util.LinkedHashMap<>();
    c.put("infera.nats.messages", t -> t.messagesReceived());
    c.put("infera.nats.bytes", t -> t.bytesReceived());
    c.put("infera.nats.garbage.subjects", t -> t.garbageSubjects());
    c.put("infera.nats.bad.headers", t -> t.badHeaders());
    c.put("infera.nats.duplicates", t -> t.duplicates());
    c.put("infera.nats.covered.skipped", t -> t.coveredSkipped());
    c.put("infera.nats.resync.markers", t -> t.resyncMarkers());
    c.put("infera.nats.resyncs", t -> t.resyncs());
    c.put("infera.nats.snapshots.seeded", t -> t.snapshotsSeeded());
    c.put("infera.nats.snapshots.bad", t -> t.badSnapshots());
    c.put("infera.nats.snapshots.stale", t -> t.staleSnapshots());
    c.put("infera.nats.reconnects", t -> t.reconnects());
    c.put("infera.nats.consumer.restarts", t -> t.consumerRestarts());
    c.put("infera.nats.lost.messages", t -> t.lostMessages());
    c.put("infera.nats.undiscovered.dropped", t -> t.undiscoveredDropped());
    c.put("infera.nats.errors", t -> t.errors());
    c.forEach((name, f) -> FunctionCounter.builder(name, n, f).register(registry));
    Gauge.builder("infera.nats.stream.lag", n, t -> t.lagMessages())
        .description("stream messages not processed yet")
        .register(registry);
    Gauge.builder("infera.nats.held.messages", n, t -> t.heldMessages())
        .description("events held for workers discovery does not know yet")
        .register(registry);
  }

  /** Cross-replica load sharing: peers seen and message counters. */
  public void bindSharedLoad(io.infera.router.policy.SharedLoad shared) {
    Gauge.builder("infera.load.sharing.replicas", shared, s -> s.stats().replicas())
        .description("other router replicas whose in-flight load this replica counts")
        .register(registry);
    Map<String, java.util.function.ToDoubleFunction<io.infera.router.policy.SharedLoad>> c =
        Map.of(
            "infera.load.sharing.published", s -> s.stats().published(),
            "infera.load.sharing.publish.failures", s -> s.stats().publishFailures(),
            "infera.load.sharing.received", s -> s.stats().received(),
            "infera.load.sharing.malformed", s -> s.stats().malformed(),
            "infera.load.sharing.expired", s -> s.stats().expired());
    c.forEach((name, f) -> FunctionCounter.builder(name, shared, f).register(registry));
  }
}
