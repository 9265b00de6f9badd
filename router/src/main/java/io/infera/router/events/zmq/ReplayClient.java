package io.infera.router.events.zmq;

import io.infera.router.kv.KvEventMessage;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Asks an engine rank's replay socket (the engine's ROUTER) for the batches it still buffers from a
 * start sequence (docs/contracts.md, "Replay socket"): sends {@code ["", start_seq]} and reads the
 * answers, in any layout {@link ReplayAnswer} accepts, until the end marker, the caller has what it
 * wants, the first malformed answer (nothing after it is trusted, so a socket speaking another
 * layout costs one message, not the timeout), or the timeout. A fresh DEALER per request: a late
 * answer to an earlier request can never be mistaken for the next one's. The one replay client of
 * the event plane: the {@code zmq} transport's gap fills, catch-ups and idle probes (and so the
 * relay's) all go through it.
 */
final class ReplayClient {

  /**
   * Largest frame a replay answer may carry (64 MiB, far above any batch an engine sends): a larger
   * one makes ZMQ drop the connection instead of buffering it, and the request ends at its timeout.
   */
  static final long DEFAULT_MAX_FRAME_BYTES = 64L << 20;

  private static final byte[] EMPTY = new byte[0];

  /** How one request ended. */
  enum Outcome {
    /** The end marker came, or the caller had everything it wanted. */
    COMPLETE,
    /** No end marker in time (or the transport stopped). */
    TIMED_OUT,
    /** An answer no engine sends; the request was abandoned there. */
    MALFORMED
  }

  /** Receives a request's answers, on the calling thread. */
  interface Answers {
    /**
     * One buffered batch, in the engine's order (each seq above the previous one).
     *
     * @param topic the answer's topic frame, or null in a layout without one
     * @return false when nothing after it is wanted: the request then ends as complete
     */
    boolean batch(byte[] topic, long seq, byte[] seqFrame, byte[] payload);

    /** The answer that ended the request as {@link Outcome#MALFORMED}. */
    void malformed(ReplayAnswer.Malformed answer);
  }

  private final Duration timeout;
  private final Duration reconnectInterval;
  private final Duration handshakeInterval;
  private final Duration slice;
  private final BooleanSupplier running;
  private final long maxFrameBytes;

  /**
   * @param timeout longest time one request may take
   * @param slice the longest single wait, so that a stop is noticed within it
   * @param running checked between waits: false ends the request (as a timeout)
   */
  ReplayClient(
      Duration timeout,
      Duration reconnectInterval,
      Duration handshakeInterval,
      Duration slice,
      BooleanSupplier running) {
    this(timeout, reconnectInterval, handshakeInterval, slice, running, DEFAULT_MAX_FRAME_BYTES);
  }

  /** As above, with the largest accepted frame (a test makes it small). */
  ReplayClient(
      Duration timeout,
      Duration reconnectInterval,
      Duration handshakeInterval,
      Duration slice,
      BooleanSupplier running,
      long maxFrameBytes) {
    this.timeout = timeout;
    this.reconnectInterval = reconnectInterval;
    // A stuck handshake (see ZmqSettings#handshakeInterval) must be redialled within the bound;
    // the queued request survives the redial.
    this.handshakeInterval =
        Duration.ofMillis(
            Math.min(handshakeInterval.toMillis(), Math.max(1, timeout.toMillis() / 3)));
    this.slice = slice;
    this.running = running;
    this.maxFrameBytes = maxFrameBytes;
  }

  /** Requests everything from {@code startSeq} and passes each answer to {@code answers}. */
  Outcome request(ZContext context, String endpoint, long startSeq, Answers answers) {
    long deadline = System.nanoTime() + timeout.toNanos();
    ZMQ.Socket dealer = context.createSocket(SocketType.DEALER);
    try {
      dealer.setLinger(0);
      dealer.setReconnectIVL((int) reconnectInterval.toMillis());
      dealer.setHandshakeIvl((int) handshakeInterval.toMillis());
      dealer.setMaxMsgSize(maxFrameBytes);
      dealer.connect(endpoint);
      // The engine's ROUTER sees [identity, "", start_seq].
      dealer.sendMore(EMPTY);
      dealer.send(KvEventMessage.seqBytes(startSeq));
      long previous = -1;
      while (running.getAsBoolean()) {
        long remaining = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (remaining <= 0) {
          return Outcome.TIMED_OUT;
        }
        // Wait in slices so that a stop is not held up by a long replay.
        dealer.setReceiveTimeOut((int) Math.min(remaining, slice.toMillis()));
        byte[] first = dealer.recv(0);
        if (first == null) {
          continue;
        }
        List<byte[]> frames = new ArrayList<>(ReplayAnswer.MAX_FRAMES);
        int count = readCapped(dealer, first, frames, ReplayAnswer.MAX_FRAMES);
        ReplayAnswer a =
            count > frames.size()
                ? new ReplayAnswer.Malformed(ReplayAnswer.Problem.FRAME_COUNT, count)
                : ReplayAnswer.parse(frames);
        if (a instanceof ReplayAnswer.Batch b && b.seq() <= previous) {
          a = new ReplayAnswer.Malformed(ReplayAnswer.Problem.OUT_OF_ORDER, count);
        }
        if (a instanceof ReplayAnswer.Malformed m) {
          answers.malformed(m);
          return Outcome.MALFORMED;
        }
        if (!(a instanceof ReplayAnswer.Batch b)) {
          return Outcome.COMPLETE; // the end marker
        }
        previous = b.seq();
        if (!answers.batch(b.topic(), b.seq(), b.seqFrame(), b.payload())) {
          return Outcome.COMPLETE;
        }
      }
      return Outcome.TIMED_OUT;
    } finally {
      dealer.close();
    }
  }

  /**
   * Reads the rest of a message into {@code into}, keeping at most {@code max} frames: a message
   * with very many parts costs no list of them.
   *
   * @return how many frames the message had
   */
  static int readCapped(ZMQ.Socket socket, byte[] first, List<byte[]> into, int max) {
    into.add(first);
    int count = 1;
    while (socket.hasReceiveMore()) {
      byte[] part = socket.recv(0);
      if (count++ < max) {
        into.add(part);
      }
    }
    return count;
  }

  /** The first frame and the parts that follow it (all here once the first is). */
  static List<byte[]> readRest(ZMQ.Socket socket, byte[] first) {
    List<byte[]> frames = new ArrayList<>(3);
    frames.add(first);
    while (socket.hasReceiveMore()) {
      frames.add(socket.recv(0));
    }
    return frames;
  }

  static long seqOf(byte[] frame) {
    return ByteBuffer.wrap(frame).getLong();
  }
}
