package io.infera.router.relay;

import io.infera.router.events.zmq.ZmqCounters;
import java.util.concurrent.atomic.AtomicLong;

/** The relay's counters; each is written by one thread (or atomically) and read by any. */
final class RelayCounters {
  final AtomicLong received = new AtomicLong();
  final AtomicLong replayed = new AtomicLong();
  final AtomicLong duplicatesSkipped = new AtomicLong();
  final AtomicLong resumeSkipped = new AtomicLong();
  final AtomicLong engineRestarts = new AtomicLong();
  final AtomicLong malformed = new AtomicLong();
  final AtomicLong published = new AtomicLong();
  final AtomicLong republished = new AtomicLong();
  final AtomicLong acked = new AtomicLong();
  final AtomicLong duplicateAcks = new AtomicLong();
  final AtomicLong publishFailures = new AtomicLong();
  final AtomicLong inFlight = new AtomicLong();
  final AtomicLong folded = new AtomicLong();
  final AtomicLong overflows = new AtomicLong();
  final AtomicLong resyncs = new AtomicLong();
  final AtomicLong orderViolations = new AtomicLong();
  final AtomicLong snapshotsWritten = new AtomicLong();
  final AtomicLong snapshotFailures = new AtomicLong();
  final AtomicLong decodeErrors = new AtomicLong();
  final AtomicLong natsReconnects = new AtomicLong();
  final AtomicLong streamResets = new AtomicLong();

  /**
   * @param bufferedBytes payload bytes received and not yet acknowledged
   * @param zmq the transport's counters, or null before it started
   */
  RelayStats snapshot(long buffered, long bufferedBytes, ZmqCounters zmq) {
    return new RelayStats(
        received.get(),
        replayed.get(),
        duplicatesSkipped.get(),
        resumeSkipped.get(),
        engineRestarts.get(),
        malformed.get(),
        published.get(),
        republished.get(),
        acked.get(),
        duplicateAcks.get(),
        publishFailures.get(),
        buffered,
        inFlight.get(),
        folded.get(),
        overflows.get(),
        resyncs.get(),
        orderViolations.get(),
        snapshotsWritten.get(),
        snapshotFailures.get(),
        decodeErrors.get(),
        natsReconnects.get(),
        zmq == null ? 0 : zmq.missedMessages(),
        zmq == null ? 0 : zmq.replayTimeouts(),
        zmq == null ? 0 : zmq.replayMalformed(),
        bufferedBytes,
        streamResets.get());
  }
}
