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
 * Asks an engine rank's replay socket (vLLM's ROUTER) for the batches it still buffers from a start
 * sequence (docs/contracts.md, "KV-event wire formats"): sends {@code ["", start_seq]}, reads
 * {@code ["", seq, payload]} (or {@code [seq, payload]}) answers until the {@code [-1, ""]} end
 * marker or the timeout. A fresh DEALER per request: a late answer to a timed-out request can never
 * be mistaken for the next one's. The one replay client of the event plane: the {@code zmq}
 * transport's gap fills, catch-ups and idle probes (and so the relay's) all go through it.
 */
final class ReplayClient {

  private static final byte[] EMPTY = new byte[0];

  /** Receives a request's answers, on the calling thread. */
  interface Answers {
    /** One buffered batch, in the engine's order. */
    void batch(long seq, byte[] seqFrame, byte[] payload);

    /** An answer that is not {@code [seq, payload]}: ignored. */
    void malformed(int frames);
  }

  private final Duration timeout;
  private final Duration reconnectInterval;
  private final Duration handshakeInterval;
  private final Duration slice;
  private final BooleanSupplier running;

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
    this.timeout = timeout;
    this.reconnectInterval = reconnectInterval;
    // A stuck handshake (see ZmqSettings#handshakeInterval) must be redialled within the bound;
    // the queued request survives the redial.
    this.handshakeInterval =
        Duration.ofMillis(
            Math.min(handshakeInterval.toMillis(), Math.max(1, timeout.toMillis() / 3)));
    this.slice = slice;
    this.running = running;
  }

  /**
   * Requests everything from {@code startSeq} and passes each answer to {@code answers}.
   *
   * @return true when the end marker came; false on timeout (or stop)
   */
  boolean request(ZContext context, String endpoint, long startSeq, Answers answers) {
    long deadline = System.nanoTime() + timeout.toNanos();
    ZMQ.Socket dealer = context.createSocket(SocketType.DEALER);
    try {
      dealer.setLinger(0);
      dealer.setReconnectIVL((int) reconnectInterval.toMillis());
      dealer.setHandshakeIvl((int) handshakeInterval.toMillis());
      dealer.connect(endpoint);
      // The engine's ROUTER sees [identity, "", start_seq].
      dealer.sendMore(EMPTY);
      dealer.send(KvEventMessage.seqBytes(startSeq));
      while (running.getAsBoolean()) {
        long remaining = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (remaining <= 0) {
          return false;
        }
        // Wait in slices so that a stop is not held up by a long replay.
        dealer.setReceiveTimeOut((int) Math.min(remaining, slice.toMillis()));
        byte[] first = dealer.recv(0);
        if (first == null) {
          continue;
        }
        List<byte[]> frames = readRest(dealer, first);
        // vLLM answers ["", seq, payload] (the ROUTER strips the identity); accept [seq, payload].
        int at = frames.size() == 3 && frames.get(0).length == 0 ? 1 : 0;
        if (frames.size() - at != 2 || frames.get(at).length != 8) {
          answers.malformed(frames.size());
          continue;
        }
        long seq = seqOf(frames.get(at));
        byte[] payload = frames.get(at + 1);
        if (seq == -1 && payload.length == 0) {
          return true;
        }
        answers.batch(seq, frames.get(at), payload);
      }
      return false;
    } finally {
      dealer.close();
    }
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
