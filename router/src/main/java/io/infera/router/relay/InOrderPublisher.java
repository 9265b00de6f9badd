package io.infera.router.relay;

import io.infera.router.relay.StreamClient.Ack;
import io.infera.router.relay.StreamClient.Outbound;
import io.infera.router.relay.StreamClient.Stored;

/**
 * Publishes one message of a rank expecting the subject's last stored message to be the rank's
 * watermark, so that nothing is ever stored out of engine order (see {@link PublishLoop}).
 * Publishing thread only.
 */
final class InOrderPublisher {

  private final StreamClient client;
  private long lastActual;

  InOrderPublisher(StreamClient client) {
    this.client = client;
  }

  /**
   * Publishes and waits for the acknowledgement.
   *
   * @return the ack, or null when a later message of the subject is stored (its sequence in {@link
   *     #lastActual})
   */
  Ack publish(RelayRank r, Outbound m) throws Exception {
    long expect = r.lastStreamSeq;
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        return client.publish(m, expect);
      } catch (StreamClient.WrongLastSequenceException e) {
        long actual = client.lastMessage(r.subject).map(Stored::streamSeq).orElse(0L);
        lastActual = actual;
        if (actual > r.lastStreamSeq) {
          return null;
        }
        // The subject's older messages aged out or were deleted: expect what is there.
        expect = actual;
      }
    }
    throw new IllegalStateException("the last sequence of " + r.subject + " keeps changing");
  }

  /** The subject's last stored sequence found by the last refused publish. */
  long lastActual() {
    return lastActual;
  }
}
