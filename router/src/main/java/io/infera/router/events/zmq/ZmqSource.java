package io.infera.router.events.zmq;

import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.WorkerId;
import org.zeromq.ZMQ;

/**
 * One (worker, rank) source of the {@code zmq} transport: its SUB socket and where its sequence
 * stands. Written by the poller thread only; the volatile fields are read by any thread for status.
 */
final class ZmqSource {

  private static final byte[] EMPTY = new byte[0];

  /** What identifies a subscription; a change of any part is a new source. */
  record Key(WorkerId worker, int rank, String endpoint, String replayEndpoint) {

    /**
     * Rank {@code rank} of {@code w}: its endpoints offset from rank 0's ({@link ZmqEndpoints}).
     *
     * @throws IllegalArgumentException when an endpoint cannot be offset
     */
    static Key of(WorkerInfo w, int rank) {
      String replay =
          w.zmqReplayEndpoint() == null || w.zmqReplayEndpoint().isBlank()
              ? null
              : ZmqEndpoints.offsetEndpointPort(w.zmqReplayEndpoint(), rank);
      return new Key(w.id(), rank, ZmqEndpoints.offsetEndpointPort(w.zmqEndpoint(), rank), replay);
    }
  }

  final Key key;
  ZMQ.Socket sub;
  volatile boolean connected;
  volatile long connectedAtNanos;
  volatile boolean received;
  volatile long lastSeq = SequenceCheck.UNKNOWN;
  volatile long messages;
  long retryConnectAtNanos;
  int connectFailures;
  long replayAllowedAtNanos;
  // A malformed replay answer is logged at WARN once per source, then only counted.
  boolean replayMalformedLogged;
  // Last SUB message or idle probe; the topic frame of the last message (for replayed ones).
  long lastActivityNanos;
  byte[] topic = EMPTY;
  // Sequences an idle probe replayed that may still arrive on the SUB socket: skipped there.
  long probedFrom;
  long probedThrough = -1;

  ZmqSource(Key key) {
    this.key = key;
  }

  boolean warm(long now, long settleNanos) {
    return received || (connected && now - connectedAtNanos >= settleNanos);
  }

  /** Last sequence seen, -1 before the first. */
  long lastSeqOrMinusOne() {
    long seq = lastSeq;
    return seq == SequenceCheck.UNKNOWN ? -1 : seq;
  }

  ZmqSourceStatus status(long now, long settleNanos) {
    return new ZmqSourceStatus(
        key.worker(),
        key.rank(),
        key.endpoint(),
        connected,
        lastSeqOrMinusOne(),
        messages,
        warm(now, settleNanos));
  }
}
