package io.infera.router.relay;

/**
 * A relay's counters at one moment (all since start, except the gauges {@code buffered} and {@code
 * inFlight}).
 *
 * @param received batches received from the engine's sockets (replayed ones included)
 * @param replayed of those, batches obtained from the engine's replay socket
 * @param duplicatesSkipped batches skipped because their engine sequence was already forwarded
 * @param resumeSkipped batches skipped at start because the stream already had them
 * @param engineRestarts engine sequences that went down (forwarded: a restart)
 * @param malformed messages with an unexpected frame shape (forwarded when they had a payload)
 * @param published batches handed to JetStream for the first time
 * @param republished batches published again after a failed or unknown acknowledgement
 * @param acked batches acknowledged by the stream and applied to the relay's view
 * @param duplicateAcks first publishes the stream reported as duplicates (already stored)
 * @param publishFailures failed publishes and NATS requests (each retried)
 * @param buffered batches received and not yet published
 * @param inFlight batches published and not yet acknowledged
 * @param folded batches applied to the view without being stored (overflow, reorder)
 * @param overflows times the buffer overflowed
 * @param resyncs resync markers stored
 * @param orderViolations batches acknowledged out of engine order
 * @param snapshotsWritten snapshots written to the bucket
 * @param snapshotFailures snapshot writes that failed (retried)
 * @param decodeErrors payloads that did not decode (forwarded, not in the view)
 * @param natsReconnects NATS reconnects after a lost connection
 * @param zmqMissed engine batches lost to a gap no replay filled
 * @param zmqReplayTimeouts replay requests with no complete answer in time
 * @param zmqReplayMalformed replay requests abandoned at an answer no engine sends
 * @param bufferedBytes payload bytes received and not yet acknowledged (gauge)
 * @param streamResets times the stream was found recreated (every rank resynced once)
 */
public record RelayStats(
    long received,
    long replayed,
    long duplicatesSkipped,
    long resumeSkipped,
    long engineRestarts,
    long malformed,
    long published,
    long republished,
    long acked,
    long duplicateAcks,
    long publishFailures,
    long buffered,
    long inFlight,
    long folded,
    long overflows,
    long resyncs,
    long orderViolations,
    long snapshotsWritten,
    long snapshotFailures,
    long decodeErrors,
    long natsReconnects,
    long zmqMissed,
    long zmqReplayTimeouts,
    long zmqReplayMalformed,
    long bufferedBytes,
    long streamResets) {}
