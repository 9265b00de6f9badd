/**
 * The relay sidecar ({@code infera-router relay}): one engine's KV events from its ZMQ sockets to
 * NATS JetStream, verbatim and in engine order per subject, plus the worker's view as snapshots in
 * the KV bucket (docs/contracts.md, "NATS event plane").
 *
 * <p>Invariants: a batch reaches the stream at most once and, per subject, in engine order; the
 * relay's view is exactly what its subjects hold (batches are applied when acknowledged) unless a
 * resync is due; a snapshot's watermark is the stream sequence of the last message its view
 * includes. When batches cannot be stored (the buffer overflowed while NATS was away, or a lost
 * publish could no longer be stored in order) they are folded into the view, counted and logged,
 * and the rank resyncs: snapshot first, then a marker (the contract is in {@link
 * io.infera.router.nats.RelayProtocol}). Nothing is lost quietly.
 */
package io.infera.router.relay;
