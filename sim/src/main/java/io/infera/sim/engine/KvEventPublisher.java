package io.infera.sim.engine;

import io.infera.router.kv.KvEventMessage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;

/**
 * One data-parallel rank's KV-event publisher, behaving like the engines' {@code ZmqEventPublisher}
 * (vLLM 0.33.0 and SGLang 0.5.23 frame alike, so every flavor does): a PUB socket sending {@code
 * [topic, seq (8 bytes, big-endian), payload]} with seq +1 per batch from 0, and an optional ROUTER
 * replay socket answering {@code [identity, "", start_seq]} with every buffered batch {@code
 * [identity, "", topic, seq, payload]} (the last {@value #BUFFER_STEPS}) and then {@code [identity,
 * "", "", -1, ""]} (docs/contracts.md, "Replay socket").
 *
 * <p>Threading: ZMQ sockets are single-threaded. The PUB, ROUTER and an inproc PULL socket belong
 * to this publisher's own thread ({@code sim-kv-<port>}), which also assigns sequence numbers and
 * keeps the replay buffer. {@link #publish} is called by exactly one other thread (the rank's
 * engine loop) and hands the payload over through the matching inproc PUSH socket, which that
 * thread alone uses; the PUSH wakes the publisher without polling delays.
 */
final class KvEventPublisher implements AutoCloseable {

  /** vLLM's default {@code buffer_steps}: batches kept for replay. */
  static final int BUFFER_STEPS = 10_000;

  private static final Logger log = LoggerFactory.getLogger(KvEventPublisher.class);
  private static final byte[] EMPTY = new byte[0];
  private static final byte[] END_SEQ = KvEventMessage.seqBytes(-1);
  private static final AtomicInteger IDS = new AtomicInteger();
  private static final int BIND_ATTEMPTS = 50;

  private record Buffered(long seq, byte[] payload) {}

  private final ZContext ctx;
  private final int rank;
  private final byte[] topic;
  private final String endpoint;
  private final String replayEndpoint;
  private final ZMQ.Socket pub;
  private final ZMQ.Socket router;
  private final ZMQ.Socket pull;
  private final ZMQ.Socket push;
  private final Thread thread;
  private final Deque<Buffered> buffer = new ArrayDeque<>();
  private volatile boolean running = true;
  private volatile long nextSeq;
  private volatile long replayRequests;

  private KvEventPublisher(
      ZContext ctx,
      int rank,
      String topic,
      ZMQ.Socket pub,
      String endpoint,
      ZMQ.Socket router,
      String replayEndpoint) {
    this.ctx = ctx;
    this.rank = rank;
    this.topic = topic.getBytes(StandardCharsets.UTF_8);
    this.pub = pub;
    this.endpoint = endpoint;
    this.router = router;
    this.replayEndpoint = replayEndpoint;
    String inproc = "inproc://sim-kv-" + IDS.incrementAndGet() + "-r" + rank;
    this.pull = ctx.createSocket(SocketType.PULL);
    pull.setLinger(0);
    pull.setRcvHWM(0);
    pull.bind(inproc);
    this.push = ctx.createSocket(SocketType.PUSH);
    push.setLinger(0);
    push.setSndHWM(0);
    push.connect(inproc);
    int port = Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    this.thread = new Thread(this::run, "sim-kv-" + port);
    thread.setDaemon(true);
  }

  /**
   * Binds the publishers of ranks {@code 0 .. dpSize-1} on consecutive ports ({@code zmqPort +
   * rank}, {@code replayPort + rank}; port 0 picks a free consecutive range) and starts them.
   *
   * @param bindHost the address to bind ({@code 0.0.0.0} binds every interface)
   * @param connectHost the address put into the advertised endpoints
   * @param connectPub the PUB sockets connect to {@code bindHost:zmqPort + rank} instead of binding
   *     it (vLLM's rule for a non-wildcard endpoint: the subscriber binds); replay still binds
   * @throws PortInUseException when a fixed port is taken
   * @throws ZMQException when a port cannot be bound for another reason
   */
  static List<KvEventPublisher> start(
      ZContext ctx,
      String bindHost,
      String connectHost,
      boolean connectPub,
      int zmqPort,
      int replayPort,
      int dpSize,
      String topic)
      throws PortInUseException {
    List<ZMQ.Socket> pubs =
        connectPub
            ? connectGroup(ctx, bindHost, zmqPort, dpSize)
            : bindGroup(ctx, SocketType.PUB, bindHost, zmqPort, dpSize, "ZMQ KV events");
    List<ZMQ.Socket> routers;
    try {
      routers =
          replayPort < 0
              ? null
              : bindGroup(ctx, SocketType.ROUTER, bindHost, replayPort, dpSize, "ZMQ replay");
    } catch (PortInUseException | RuntimeException e) {
      pubs.forEach(ZMQ.Socket::close);
      throw e;
    }
    List<KvEventPublisher> out = new ArrayList<>(dpSize);
    for (int r = 0; r < dpSize; r++) {
      ZMQ.Socket pub = pubs.get(r);
      ZMQ.Socket router = routers == null ? null : routers.get(r);
      out.add(
          new KvEventPublisher(
              ctx,
              r,
              topic,
              pub,
              connectPub
                  ? "tcp://" + connectHost + ":" + (zmqPort + r)
                  : endpoint(connectHost, pub),
              router,
              router == null ? null : endpoint(connectHost, router)));
    }
    out.forEach(p -> p.thread.start());
    return List.copyOf(out);
  }

  /** {@code n} PUB sockets connected to {@code host:base + i} (ZMQ retries until it is bound). */
  private static List<ZMQ.Socket> connectGroup(ZContext ctx, String host, int base, int n) {
    List<ZMQ.Socket> group = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ZMQ.Socket s = ctx.createSocket(SocketType.PUB);
      group.add(s);
      s.setLinger(0);
      s.setSndHWM(100_000);
      s.connect("tcp://" + host + ":" + (base + i));
    }
    return group;
  }

  private static String endpoint(String connectHost, ZMQ.Socket s) {
    String last = s.getLastEndpoint();
    return "tcp://" + connectHost + ":" + last.substring(last.lastIndexOf(':') + 1);
  }

  /**
   * Binds {@code n} sockets on {@code base + i}; base 0 looks for a free consecutive range.
   *
   * @param purpose what the ports are for, named when a fixed one is taken
   */
  private static List<ZMQ.Socket> bindGroup(
      ZContext ctx, SocketType type, String host, int base, int n, String purpose)
      throws PortInUseException {
    ZMQException last = null;
    for (int attempt = 0; attempt < (base == 0 ? BIND_ATTEMPTS : 1); attempt++) {
      List<ZMQ.Socket> group = new ArrayList<>(n);
      try {
        int first = base;
        for (int i = 0; i < n; i++) {
          ZMQ.Socket s = ctx.createSocket(type);
          group.add(s);
          s.setLinger(0);
          // Room for the whole replay buffer: a ROUTER drops what exceeds its high-water mark.
          s.setSndHWM(type == SocketType.ROUTER ? BUFFER_STEPS + 16 : 100_000);
          if (i == 0 && base == 0) {
            first = s.bindToRandomPort("tcp://" + host, 20_000, 60_000);
          } else {
            s.bind("tcp://" + host + ":" + (first + i));
          }
        }
        return group;
      } catch (ZMQException e) {
        last = e;
        group.forEach(ZMQ.Socket::close);
        if (base != 0 && e.getErrorCode() == ZMQ.Error.EADDRINUSE.getCode()) {
          // The socket that failed is the last one created: rank group.size() - 1.
          throw new PortInUseException(base + group.size() - 1, purpose, e);
        }
      }
    }
    throw last;
  }

  int rank() {
    return rank;
  }

  String endpoint() {
    return endpoint;
  }

  /** The replay endpoint, or null without a replay socket. */
  String replayEndpoint() {
    return replayEndpoint;
  }

  /** Batches published so far (the next batch's seq). Any thread. */
  long published() {
    return nextSeq;
  }

  /** Replay requests answered. Any thread. */
  long replayRequests() {
    return replayRequests;
  }

  /**
   * Queues one batch payload for publishing. Only ever called from the rank's engine loop thread
   * (the PUSH socket's owner).
   */
  void publish(byte[] payload) {
    if (running) {
      push.send(payload, 0);
    }
  }

  private void run() {
    try (ZMQ.Poller poller = ctx.createPoller(2)) {
      int pullIndex = poller.register(pull, ZMQ.Poller.POLLIN);
      int routerIndex = router == null ? -1 : poller.register(router, ZMQ.Poller.POLLIN);
      while (running) {
        if (poller.poll(100) <= 0) {
          continue;
        }
        if (poller.pollin(pullIndex)) {
          drainQueue();
        }
        if (routerIndex >= 0 && poller.pollin(routerIndex)) {
          serveReplay();
        }
      }
    } catch (ZMQException e) {
      if (running) {
        log.warn("kv publisher stopped rank={} endpoint={} error={}", rank, endpoint, e.toString());
      }
    } catch (RuntimeException e) {
      log.error("kv publisher failed rank={} endpoint={}", rank, endpoint, e);
    }
  }

  private void drainQueue() {
    byte[] payload;
    while (running && (payload = pull.recv(ZMQ.DONTWAIT)) != null) {
      long seq = nextSeq;
      pub.sendMore(topic);
      pub.sendMore(KvEventMessage.seqBytes(seq));
      pub.send(payload, 0);
      buffer.addLast(new Buffered(seq, payload));
      if (buffer.size() > BUFFER_STEPS) {
        buffer.removeFirst();
      }
      nextSeq = seq + 1;
    }
  }

  /** The engines' {@code _service_replay}: the live topic frame on every batch, none at the end. */
  private void serveReplay() {
    byte[] identity;
    while ((identity = router.recv(ZMQ.DONTWAIT)) != null) {
      List<byte[]> frames = new ArrayList<>(3);
      frames.add(identity);
      while (router.hasReceiveMore()) {
        frames.add(router.recv(0));
      }
      if (frames.size() != 3 || frames.get(2).length != 8) {
        log.warn("kv publisher invalid replay request rank={} frames={}", rank, frames.size());
        continue;
      }
      replayRequests++;
      long start = ByteBuffer.wrap(frames.get(2)).getLong();
      for (Buffered b : buffer) {
        if (b.seq() >= start) {
          router.sendMore(identity);
          router.sendMore(EMPTY);
          router.sendMore(topic);
          router.sendMore(KvEventMessage.seqBytes(b.seq()));
          router.send(b.payload(), 0);
        }
      }
      router.sendMore(identity);
      router.sendMore(EMPTY);
      router.sendMore(EMPTY);
      router.sendMore(END_SEQ);
      router.send(EMPTY, 0);
    }
  }

  /**
   * Stops the thread. Call after the engine loop (the PUSH owner) has stopped; the sockets are then
   * closed by the context's owner.
   */
  @Override
  public void close() {
    running = false;
    try {
      thread.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      log.warn("kv publisher thread did not stop rank={}", rank);
    }
  }
}
