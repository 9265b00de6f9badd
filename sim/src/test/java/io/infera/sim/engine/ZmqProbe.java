package io.infera.sim.engine;

import io.infera.router.kv.EventDecodeException;
import io.infera.router.kv.KvEventMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZEvent;
import org.zeromq.ZMQ;

/** A test-side ZMQ subscriber and replay client for a simulated engine's KV events. */
final class ZmqProbe implements AutoCloseable {

  private static final AtomicInteger MONITORS = new AtomicInteger();

  private final ZContext ctx = new ZContext(1);
  private final ZMQ.Socket sub;

  /** Subscribes to everything on {@code endpoint} and waits until the connection is up. */
  ZmqProbe(String endpoint) {
    ctx.setLinger(0);
    sub = ctx.createSocket(SocketType.SUB);
    sub.setLinger(0);
    sub.setHandshakeIvl(1000);
    sub.setReconnectIVL(50);
    sub.subscribe(ZMQ.SUBSCRIPTION_ALL);
    String monitorAddress = "inproc://probe-monitor-" + MONITORS.incrementAndGet();
    sub.monitor(monitorAddress, ZMQ.EVENT_HANDSHAKE_PROTOCOL);
    ZMQ.Socket monitor = ctx.createSocket(SocketType.PAIR);
    monitor.connect(monitorAddress);
    monitor.setReceiveTimeOut(5000);
    sub.connect(endpoint);
    ZEvent e = ZEvent.recv(monitor);
    monitor.close();
    if (e == null) {
      throw new IllegalStateException("no ZMTP handshake with " + endpoint + " within 5 s");
    }
    // The subscription travels after the handshake: give the PUB socket time to apply it.
    sleep(200);
  }

  /** Messages until none arrives for {@code quietMs} (or {@code maxMs} passed). */
  List<KvEventMessage> drain(long quietMs, long maxMs) throws EventDecodeException {
    List<KvEventMessage> out = new ArrayList<>();
    long deadline = System.currentTimeMillis() + maxMs;
    sub.setReceiveTimeOut((int) quietMs);
    while (System.currentTimeMillis() < deadline) {
      byte[] first = sub.recv(0);
      if (first == null) {
        break;
      }
      List<byte[]> frames = new ArrayList<>();
      frames.add(first);
      while (sub.hasReceiveMore()) {
        frames.add(sub.recv(0));
      }
      out.add(KvEventMessage.fromFrames(frames));
    }
    return out;
  }

  /**
   * Asks a replay socket for every batch from {@code startSeq}; returns them (with their topic
   * frame) without the sentinel, which must arrive. Only the layout current engines answer in is
   * accepted: {@code ["", topic, seq, payload]}, ending {@code ["", "", -1, ""]}.
   */
  static List<KvEventMessage> replay(String endpoint, long startSeq) throws EventDecodeException {
    try (ZContext c = new ZContext(1)) {
      c.setLinger(0);
      ZMQ.Socket dealer = c.createSocket(SocketType.DEALER);
      dealer.setLinger(0);
      dealer.setReceiveTimeOut(10_000);
      // jeromq 0.6.0 sometimes never starts the handshake (zeromq/jeromq#1022): redial quickly.
      dealer.setHandshakeIvl(1000);
      dealer.setReconnectIVL(50);
      dealer.connect(endpoint);
      dealer.sendMore(new byte[0]);
      dealer.send(KvEventMessage.seqBytes(startSeq), 0);
      List<KvEventMessage> out = new ArrayList<>();
      while (true) {
        byte[] empty = dealer.recv(0);
        if (empty == null) {
          throw new IllegalStateException("replay answer incomplete after " + out.size());
        }
        List<byte[]> frames = new ArrayList<>();
        while (dealer.hasReceiveMore()) {
          frames.add(dealer.recv(0));
        }
        if (empty.length != 0 || frames.size() != 3) {
          throw new IllegalStateException("unexpected replay frames: " + (frames.size() + 1));
        }
        KvEventMessage m = KvEventMessage.fromFrames(frames);
        if (m.isReplayEnd()) {
          if (m.topic().length != 0) {
            throw new IllegalStateException("the end marker carries a topic");
          }
          return out;
        }
        out.add(m);
      }
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    ctx.close();
  }
}
