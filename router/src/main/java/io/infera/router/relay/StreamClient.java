package io.infera.router.relay;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * What the relay needs from JetStream: publish with acknowledgement, read back its own subjects,
 * and keep snapshots. {@link NatsStreamClient} is the real one; tests use an in-memory stream.
 *
 * <p>Threading: {@link #publishAsync} and {@link #connected} may be called from any thread; the
 * other calls block for at most the client's request timeout and are made from the relay's
 * publishing and snapshot threads.
 */
interface StreamClient extends AutoCloseable {

  /** Sentinel for "no expectation on the subject's last sequence". */
  long ANY_LAST_SEQ = -1;

  /**
   * A message to store.
   *
   * @param headers header name → value (one value each)
   * @param messageId JetStream's {@code Nats-Msg-Id}: the same id is stored once
   */
  record Outbound(String subject, Map<String, String> headers, byte[] payload, String messageId) {}

  /**
   * A stream acknowledgement.
   *
   * @param streamSeq where the message is stored (for a duplicate: where it was stored before)
   * @param duplicate whether a message with the same id was already stored
   */
  record Ack(long streamSeq, boolean duplicate) {}

  /** A stored message of one of the relay's subjects. */
  record Stored(long streamSeq, Map<String, String> headers, byte[] payload) {}

  /** The subject's last stored message is not the one a publish expected. */
  final class WrongLastSequenceException extends Exception {
    WrongLastSequenceException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Connects (retrying with back-off until it succeeds or {@code stillWanted} turns false).
   *
   * @return whether connected
   */
  boolean connect(java.util.function.BooleanSupplier stillWanted) throws InterruptedException;

  /** Creates the stream and the snapshot bucket when missing (idempotent). */
  void setup() throws Exception;

  /** Whether the connection is up right now (a publish now would not wait for a reconnect). */
  boolean connected();

  /** Times the connection came back after being lost. */
  long reconnects();

  /** Publishes and returns the acknowledgement's future (failed futures, never exceptions). */
  CompletableFuture<Ack> publishAsync(Outbound message);

  /**
   * Publishes and waits for the acknowledgement.
   *
   * @param expectedLastSubjectSeq the stream sequence the subject's last message must have (0: the
   *     subject must be empty), or {@link #ANY_LAST_SEQ}
   * @throws WrongLastSequenceException when the expectation failed (nothing was stored)
   */
  Ack publish(Outbound message, long expectedLastSubjectSeq) throws Exception;

  /** The subject's last stored message, if any. */
  Optional<Stored> lastMessage(String subject) throws Exception;

  /**
   * Delivers the subject's messages with stream sequence in {@code [from, to]}, in order (fewer if
   * some are gone).
   */
  void read(String subject, long from, long to, Consumer<Stored> each) throws Exception;

  /** The snapshot at {@code key}, if any. */
  Optional<byte[]> getSnapshot(String key) throws Exception;

  /** Stores a snapshot; returns its bucket revision. */
  long putSnapshot(String key, byte[] value) throws Exception;

  @Override
  void close();
}
