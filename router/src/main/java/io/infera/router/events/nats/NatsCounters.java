package io.infera.router.events.nats;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The {@code nats} transport's counters, written by its consumer thread (and jnats's for
 * reconnects), read by any thread, bound as {@code infera.nats.*}.
 */
public final class NatsCounters implements MeterBinder {

  final AtomicLong messages = new AtomicLong();
  final AtomicLong bytes = new AtomicLong();
  final AtomicLong garbageSubjects = new AtomicLong();
  final AtomicLong foreignPool = new AtomicLong();
  final AtomicLong badHeaders = new AtomicLong();
  final AtomicLong duplicates = new AtomicLong();
  final AtomicLong coveredSkipped = new AtomicLong();
  final AtomicLong resyncMarkers = new AtomicLong();
  final AtomicLong resyncs = new AtomicLong();
  final AtomicLong snapshotsSeeded = new AtomicLong();
  final AtomicLong badSnapshots = new AtomicLong();
  final AtomicLong staleSnapshots = new AtomicLong();
  final AtomicLong reconnects = new AtomicLong();
  final AtomicLong consumerRestarts = new AtomicLong();
  final AtomicLong lostMessages = new AtomicLong();
  final AtomicLong errors = new AtomicLong();
  private final LongSupplier undiscoveredDropped;
  private final IntSupplier heldMessages;
  private final LongSupplier lagMessages;

  NatsCounters(
      LongSupplier undiscoveredDropped, IntSupplier heldMessages, LongSupplier lagMessages) {
    this.undiscoveredDropped = undiscoveredDropped;
    this.heldMessages = heldMessages;
    this.lagMessages = lagMessages;
  }

  /** Stream messages received (duplicates and garbage included). */
  public long messagesReceived() {
    return messages.get();
  }

  /** Payload bytes received. */
  public long bytesReceived() {
    return bytes.get();
  }

  /**
   * Messages (events and resync markers) whose subject names a pool the worker is not a discovered
   * member of: dropped.
   */
  public long foreignPool() {
    return foreignPool.get();
  }

  /** Messages whose subject names no worker and rank: skipped. */
  public long garbageSubjects() {
    return garbageSubjects.get();
  }

  /** Messages whose engine-seq header was not a number (delivered without a sequence). */
  public long badHeaders() {
    return badHeaders.get();
  }

  /** Messages received again after a consumer restart: skipped. */
  public long duplicates() {
    return duplicates.get();
  }

  /** Messages skipped because their source's seeded snapshot included them. */
  public long coveredSkipped() {
    return coveredSkipped.get();
  }

  /** Resync markers received. */
  public long resyncMarkers() {
    return resyncMarkers.get();
  }

  /** Resync markers that led to a seeded snapshot. */
  public long resyncs() {
    return resyncs.get();
  }

  /** Snapshots seeded (start, discovery, resync, loss, repair). */
  public long snapshotsSeeded() {
    return snapshotsSeeded.get();
  }

  /** Snapshots that could not be decoded or were built for another block size or stream. */
  public long badSnapshots() {
    return badSnapshots.get();
  }

  /** Snapshots not seeded because they predate events already applied. */
  public long staleSnapshots() {
    return staleSnapshots.get();
  }

  /** Times the connection came back after a loss. */
  public long reconnects() {
    return reconnects.get();
  }

  /** Consumers recreated because they stalled. */
  public long consumerRestarts() {
    return consumerRestarts.get();
  }

  /** Stream messages gone before they were read (retention). */
  public long lostMessages() {
    return lostMessages.get();
  }

  /** Events of undiscovered workers dropped (held too long, over the bound, or worker left). */
  public long undiscoveredDropped() {
    return undiscoveredDropped.getAsLong();
  }

  /** Events held for workers discovery does not know yet. */
  public int heldMessages() {
    return heldMessages.getAsInt();
  }

  /** Unexpected failures (sessions that failed, sink errors). */
  public long errors() {
    return errors.get();
  }

  /** Stream messages not processed yet. */
  public long lagMessages() {
    return lagMessages.getAsLong();
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Map<String, ToDoubleFunction<NatsCounters>> c = new LinkedHashMap<>();
    c.put("infera.nats.messages", NatsCounters::messagesReceived);
    c.put("infera.nats.bytes", NatsCounters::bytesReceived);
    c.put("infera.nats.garbage.subjects", NatsCounters::garbageSubjects);
    c.put("infera.nats.foreign.pool", NatsCounters::foreignPool);
    c.put("infera.nats.bad.headers", NatsCounters::badHeaders);
    c.put("infera.nats.duplicates", NatsCounters::duplicates);
    c.put("infera.nats.covered.skipped", NatsCounters::coveredSkipped);
    c.put("infera.nats.resync.markers", NatsCounters::resyncMarkers);
    c.put("infera.nats.resyncs", NatsCounters::resyncs);
    c.put("infera.nats.snapshots.seeded", NatsCounters::snapshotsSeeded);
    c.put("infera.nats.snapshots.bad", NatsCounters::badSnapshots);
    c.put("infera.nats.snapshots.stale", NatsCounters::staleSnapshots);
    c.put("infera.nats.reconnects", NatsCounters::reconnects);
    c.put("infera.nats.consumer.restarts", NatsCounters::consumerRestarts);
    c.put("infera.nats.lost.messages", NatsCounters::lostMessages);
    c.put("infera.nats.undiscovered.dropped", NatsCounters::undiscoveredDropped);
    c.put("infera.nats.errors", NatsCounters::errors);
    c.forEach((name, f) -> FunctionCounter.builder(name, this, f).register(registry));
    Gauge.builder("infera.nats.stream.lag", this, NatsCounters::lagMessages)
        .description("stream messages not processed yet")
        .register(registry);
    Gauge.builder("infera.nats.held.messages", this, NatsCounters::heldMessages)
        .description("events held for workers discovery does not know yet")
        .register(registry);
  }
}
