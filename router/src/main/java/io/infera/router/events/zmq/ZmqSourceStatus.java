package io.infera.router.events.zmq;

import io.infera.router.kv.WorkerId;

/**
 * One (worker, rank) subscription of the {@code zmq} transport, as the relay's status shows it.
 *
 * @param endpoint the rank's PUB endpoint (rank 0's port + rank)
 * @param connected whether the SUB socket is connected (ZMQ keeps reconnecting by itself)
 * @param lastSeq last sequence number seen, or -1 before the first sequenced message
 * @param messages messages received from this source (replayed ones included)
 * @param warm whether the source has delivered something or settled after connecting
 */
public record ZmqSourceStatus(
    WorkerId worker,
    int rank,
    String endpoint,
    boolean connected,
    long lastSeq,
    long messages,
    boolean warm) {}
