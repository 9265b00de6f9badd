package io.infera.router.relay;

import io.infera.router.kv.KvEventMessage;
import io.infera.router.nats.RelayProtocol;

/**
 * One engine batch on its way to the stream.
 *
 * @param rank the rank of the socket it came from (the subject's rank)
 * @param engineSeq the engine's sequence, or {@link KvEventMessage#NO_SEQ}
 * @param payload the msgpack batch, forwarded byte for byte
 * @param payloadHash {@link RelayProtocol#payloadHash} of the payload
 * @param receivedNanos {@link System#nanoTime()} when the relay received it
 * @param ordinal position among all batches this relay run received (unique)
 */
record RelayBatch(
    int rank, long engineSeq, byte[] payload, long payloadHash, long receivedNanos, long ordinal) {

  boolean hasSeq() {
    return engineSeq != KvEventMessage.NO_SEQ;
  }
}
