/**
 * {@code zmq}: one SUB socket per engine rank on one poller thread; each sequence is judged by the
 * pure {@link io.infera.router.events.zmq.SequenceCheck}, and gaps, catch-ups and idle probes are
 * filled through the one {@link io.infera.router.events.zmq.ReplayClient}, whose answers the pure
 * {@link io.infera.router.events.zmq.ReplayAnswer} parses (every layout engines answer in). The
 * relay reads its engine through this transport too.
 */
package io.infera.router.events.zmq;
