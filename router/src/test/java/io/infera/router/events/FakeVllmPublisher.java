package io.infera.router.events;

import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEvent.AllBlocksCleared;
import io.infera.router.kv.KvEvent.BlockRemoved;
import io.infera.router.kv.KvEvent.BlockStored;
import io.infera.router.kv.KvEventMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZEvent;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;

/**
 * A stand-in for vLLM's {@code ZmqEventPublisher}: a PUB socket on a loopback port sending {@code
 * [topic, seq (8 bytes, big-endian), msgpack batch]} in vLLM's map shape, and optionally a ROUTER
 * replay socket that answers like vLLM's {@code _service_replay} (every buffered batch with seq >=
 * start, then the seq -1 sentinel with an empty payload) in the {@link ReplayLayout} it is given.
 *
 * <p>Thread-safe: publishing methods may be called from any thread. No test-framework dependency,
 * so any test (or a demo) can use it. Remember ZMQ's slow joiner: a subscriber misses what is
 * published before its subscription reaches the PUB socket, so publish probes until one arrives.
 */
public final class FakeVllmPublisher implements AutoCloseable {

  /** The topic frame sent by default (docs/contracts.md, "KV-event wire formats"). */
  public static final String DEFAULT_TOPIC = "kv-events";

  /** vLLM's default {@code buffer_steps}: batches kept for replay. */
  public static final int DEFAULT_BUFFER_STEPS = 10_000;

  private static final Logger log = LoggerFactory.getLogger(FakeVllmPublisher.class);
  private static final byte[] EMPTY = new byte[0];
  private static final byte[] END_SEQ = KvEventMessage.seqBytes(-1);
  private static final String LOOPBACK = "tcp://127.0.0.1";
  private static final AtomicInteger MONITOR_IDS = new AtomicInteger();

  /** How the replay socket frames its answers (docs/contracts.md, "Replay socket"). */
  public enum ReplayLayout {
    /**
     * {@code [identity, "", topic, seq, payload]}, ending {@code [identity, "", "", -1, ""]}: vLLM
     * 0.26+ and SGLang 0.5.23.
     */
    TOPIC,
    /**
     * {@code [identity, "", seq, payload]}, ending {@code [identity, "", -1, ""]}: older engines.
     */
    NO_TOPIC,
    /** Five frames per batch and no end marker: a socket speaking a layout nobody knows. */
    GARBAGE
  }

  /** Options; {@link #start()} binds the sockets. */
  public static final class Builder {
    private int port;
    private boolean replay = true;
    private int replayPort;
    private int dpRank;
    private String topic = DEFAULT_TOPIC;
    private int blockSize = 16;
    private int bufferSteps = DEFAULT_BUFFER_STEPS;
    private ReplayLayout replayLayout = ReplayLayout.TOPIC;
    private boolean connect;

    private Builder() {}

    /**
     * The PUB socket connects to {@link #port} on 127.0.0.1 instead of binding it, as vLLM and
     * SGLang do for an endpoint that is not a wildcard: the subscriber binds. Needs a port.
     */
    public Builder connect(boolean connect) {
      this.connect = connect;
      return this;
    }

    /** How replay answers are framed (default {@link ReplayLayout#TOPIC}, as current engines). */
    public Builder replayLayout(ReplayLayout layout) {
      this.replayLayout = layout;
      return this;
    }

    /** PUB port on 127.0.0.1; 0 (the default) picks a free one. */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /** Whether to bind a replay ROUTER socket (default true). */
    public Builder replay(boolean replay) {
      this.replay = replay;
      return this;
    }

    /** Replay port on 127.0.0.1; 0 (the default) picks a free one. Implies {@code replay(true)}. */
    public Builder replayPort(int replayPort) {
      this.replayPort = replayPort;
      this.replay = true;
      return this;
    }

    /** The {@code data_parallel_rank} written into every batch (default 0). */
    public Builder dpRank(int dpRank) {
      this.dpRank = dpRank;
      return this;
    }

    /** The topic frame (default {@value #DEFAULT_TOPIC}; vLLM's own default is empty). */
    public Builder topic(String topic) {
      this.topic = topic;
      return this;
    }

    /** The {@code block_size} of {@link #publishStored} events (default 16). */
    public Builder blockSize(int blockSize) {
      this.blockSize = blockSize;
      return this;
    }

    /** Batches kept for replay (default {@value #DEFAULT_BUFFER_STEPS}). */
    public Builder bufferSteps(int bufferSteps) {
      this.bufferSteps = bufferSteps;
      return this;
    }

    public FakeVllmPublisher start() {
      return new FakeVllmPublisher(this);
    }
  }

  private record Buffered(long seq, byte[] payload) {}

  private final int dpRank;
  private final byte[] topic;
  private final int blockSize;
  private final int bufferSteps;
  private final ReplayLayout replayLayout;
  private final boolean connect;
  private final int port;
  private final int replayPort;
  // Its own lock: the service thread reads it while a publisher-locked restart() joins that thread.
  private final Object bufferLock = new Object();
  private final Deque<Buffered> buffer = new ArrayDeque<>();
  private final AtomicInteger replayRequests = new AtomicInteger();
  private long nextSeq;
  private Incarnation live;
  private boolean closed;

  /** A rank-0 publisher with a replay socket, both on free loopback ports. */
  public FakeVllmPublisher() {
    this(builder());
  }

  private FakeVllmPublisher(Builder b) {
    if (b.port < 0 || b.replayPort < 0 || b.dpRank < 0 || b.bufferSteps < 1) {
      throw new IllegalArgumentException("ports and rank must be >= 0, bufferSteps >= 1");
    }
    if (b.connect && b.port == 0) {
      throw new IllegalArgumentException("a connecting PUB needs the subscriber's port");
    }
    this.connect = b.connect;
    this.dpRank = b.dpRank;
    this.topic = b.topic.getBytes(StandardCharsets.UTF_8);
    this.blockSize = b.blockSize;
    this.bufferSteps = b.bufferSteps;
    this.replayLayout = b.replayLayout;
    this.live = new Incarnation(b.port, b.replay, b.replayPort);
    this.port = live.port;
    this.replayPort = live.replayPort;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * {@code dpSize} publishers for ranks 0..dpSize-1 on consecutive ports (and consecutive replay
   * ports), as one vLLM server with data parallelism binds them.
   */
  public static List<FakeVllmPublisher> dpGroup(int dpSize, boolean replay) {
    RuntimeException last = null;
    for (int attempt = 0; attempt < 20; attempt++) {
      List<FakeVllmPublisher> group = new ArrayList<>();
      try {
        FakeVllmPublisher first = builder().replay(replay).start();
        group.add(first);
        for (int r = 1; r < dpSize; r++) {
          Builder b = builder().port(first.port() + r).dpRank(r).replay(replay);
          if (replay) {
            b.replayPort(first.replayPort + r);
          }
          group.add(b.start());
        }
        return List.copyOf(group);
      } catch (RuntimeException e) {
        last = e;
        group.forEach(FakeVllmPublisher::close);
      }
    }
    throw new IllegalStateException("no " + dpSize + " consecutive free ports", last);
  }

  /** A loopback TCP port that was free a moment ago (for a publisher started later). */
  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The PUB endpoint, e.g. {@code tcp://127.0.0.1:5557}. */
  public String endpoint() {
    return LOOPBACK + ":" + port;
  }

  /** The replay endpoint, or null without a replay socket. */
  public String replayEndpoint() {
    return replayPort < 0 ? null : LOOPBACK + ":" + replayPort;
  }

  public int port() {
    return port;
  }

  public int dpRank() {
    return dpRank;
  }

  /** The seq the next batch gets. */
  public synchronized long nextSeq() {
    return nextSeq;
  }

  /** TCP connections currently accepted by the PUB socket (from its socket monitor). */
  public synchronized int connectedSubscribers() {
    return live == null ? 0 : live.subscribers.get();
  }

  /** Replay requests served since construction. */
  public int replayRequests() {
    return replayRequests.get();
  }

  /** Publishes one batch with these events (none: an empty batch, handy as a probe). */
  public synchronized long publish(KvEvent... events) {
    return emit(nextSeq, batchPayload(now(), dpRank, events), true);
  }

  /** Publishes a batch with one {@code BlockStored} of this publisher's block size. */
  public long publishStored(long[] hashes, Long parent, int[] tokens) {
    return publish(stored(hashes, parent, tokens));
  }

  /** Publishes a batch with one {@code BlockRemoved}. */
  public long publishRemoved(long... hashes) {
    return publish(new BlockRemoved(hashes, null, null));
  }

  /** Publishes a batch with one {@code AllBlocksCleared}. */
  public long publishCleared() {
    return publish(new AllBlocksCleared());
  }

  /**
   * Sends {@code payload} as-is with sequence {@code seq} (buffered for replay too); the next batch
   * gets {@code seq + 1}.
   */
  public synchronized long publishRaw(long seq, byte[] payload) {
    return emit(seq, payload, true);
  }

  /** Sends an old-style two-frame message {@code [topic, payload]}: no seq, not buffered. */
  public synchronized void publishWithoutSeq(KvEvent... events) {
    checkOpen();
    live.pub.sendMore(topic);
    live.pub.send(batchPayload(now(), dpRank, events));
  }

  /** Sends one batch as ATOM's publisher does without a topic: the payload alone, one frame. */
  public synchronized void publishPayloadOnly(KvEvent... events) {
    checkOpen();
    live.pub.send(batchPayload(now(), dpRank, events));
  }

  /**
   * Takes the next seq for an empty batch that is buffered for replay but never sent: a gap on the
   * wire, as when ZMQ drops a message at the high-water mark.
   */
  public long skipSeq() {
    return skip();
  }

  /** Like {@link #skipSeq()}, with these events in the skipped batch. */
  public synchronized long skip(KvEvent... events) {
    return emit(nextSeq, batchPayload(now(), dpRank, events), false);
  }

  /**
   * Simulates an engine restart: closes the sockets, forgets the replay buffer, binds the same
   * ports again and starts over at seq 0. Subscribers reconnect by themselves.
   */
  public synchronized void restart() {
    checkOpen();
    live.close();
    live = null;
    synchronized (bufferLock) {
      buffer.clear();
    }
    nextSeq = 0;
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (true) {
      try {
        live = new Incarnation(port, replayPort >= 0, Math.max(replayPort, 0));
        return;
      } catch (ZMQException e) {
        // The old listener may still hold the port for a moment.
        if (System.nanoTime() - deadline > 0) {
          throw e;
        }
        sleep(20);
      }
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (live != null) {
      live.close();
      live = null;
    }
  }

  /** A {@code BlockStored} of this publisher's block size. */
  public BlockStored stored(long[] hashes, Long parent, int[] tokens) {
    return new BlockStored(hashes, parent, tokens, blockSize, null, null, null, null, null, null);
  }

  /**
   * A batch as vLLM (2026) sends it: {@code {"ts", "events": [{"type", …}], "data_parallel_rank"}}
   * with u64 hashes; a null medium is written as {@code "GPU"}, like vLLM does.
   *
   * @param dpRank the batch's rank, or null to leave the key out
   */
  public static byte[] batchPayload(double ts, Integer dpRank, KvEvent... events) {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packMapHeader(dpRank == null ? 2 : 3);
      p.packString("ts").packDouble(ts);
      p.packString("events").packArrayHeader(events.length);
      for (KvEvent e : events) {
        packEvent(p, e);
      }
      if (dpRank != null) {
        p.packString("data_parallel_rank").packInt(dpRank);
      }
      return p.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void packEvent(MessagePacker p, KvEvent e) throws IOException {
    if (e instanceof BlockStored s) {
      if (s.cacheSalt() != null) {
        throw new IllegalArgumentException("the fake publisher does not encode cache salts");
      }
      int extra = (s.groupIdx() == null ? 0 : 1) + (s.kvCacheSpecKind() == null ? 0 : 1);
      p.packMapHeader(8 + extra);
      p.packString("type").packString("BlockStored");
      p.packString("block_hashes");
      packHashes(p, s.blockHashes());
      p.packString("parent_block_hash");
      if (s.parentBlockHash() == null) {
        p.packNil();
      } else {
        packU64(p, s.parentBlockHash());
      }
      p.packString("token_ids").packArrayHeader(s.tokenIds().length);
      for (int t : s.tokenIds()) {
        p.packInt(t);
      }
      p.packString("block_size").packInt(s.blockSize());
      p.packString("lora_id");
      if (s.loraId() == null) {
        p.packNil();
      } else {
        p.packLong(s.loraId());
      }
      p.packString("medium").packString(s.medium() == null ? KvEvent.MEDIUM_GPU : s.medium());
      p.packString("lora_name");
      if (s.loraName() == null) {
        p.packNil();
      } else {
        p.packString(s.loraName());
      }
      if (s.groupIdx() != null) {
        p.packString("group_idx").packInt(s.groupIdx());
      }
      if (s.kvCacheSpecKind() != null) {
        p.packString("kv_cache_spec_kind").packString(s.kvCacheSpecKind());
      }
    } else if (e instanceof BlockRemoved r) {
      p.packMapHeader(r.groupIdx() == null ? 3 : 4);
      p.packString("type").packString("BlockRemoved");
      p.packString("block_hashes");
      packHashes(p, r.blockHashes());
      p.packString("medium").packString(r.medium() == null ? KvEvent.MEDIUM_GPU : r.medium());
      if (r.groupIdx() != null) {
        p.packString("group_idx").packInt(r.groupIdx());
      }
    } else if (e instanceof AllBlocksCleared) {
      p.packMapHeader(1);
      p.packString("type").packString("AllBlocksCleared");
    } else {
      throw new IllegalArgumentException("unknown event " + e);
    }
  }

  private static void packHashes(MessagePacker p, long[] hashes) throws IOException {
    p.packArrayHeader(hashes.length);
    for (long h : hashes) {
      packU64(p, h);
    }
  }

  /** Python ints are unsigned here: values above 2^63 go out as msgpack uint64, like vLLM's. */
  private static void packU64(MessagePacker p, long v) throws IOException {
    if (v >= 0) {
      p.packLong(v);
    } else {
      p.packBigInteger(new BigInteger(Long.toUnsignedString(v)));
    }
  }

  private long emit(long seq, byte[] payload, boolean send) {
    checkOpen();
    synchronized (bufferLock) {
      buffer.addLast(new Buffered(seq, payload));
      while (buffer.size() > bufferSteps) {
        buffer.removeFirst();
      }
    }
    if (send) {
      live.pub.sendMore(topic);
      live.pub.sendMore(KvEventMessage.seqBytes(seq));
      live.pub.send(payload);
    }
    nextSeq = seq + 1;
    return seq;
  }

  private List<Buffered> bufferedFrom(long start) {
    List<Buffered> out = new ArrayList<>();
    synchronized (bufferLock) {
      for (Buffered b : buffer) {
        if (b.seq() >= start) {
          out.add(b);
        }
      }
    }
    return out;
  }

  private void checkOpen() {
    if (closed || live == null) {
      throw new IllegalStateException("publisher is closed");
    }
  }

  private static double now() {
    return System.currentTimeMillis() / 1000.0;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /**
   * One "engine process": its own context and sockets. The PUB socket is used under the publisher's
   * lock; the replay ROUTER and the PUB monitor belong to the service thread.
   */
  private final class Incarnation {
    final ZContext ctx = new ZContext(1);
    final ZMQ.Socket pub;
    final ZMQ.Socket monitor;
    final ZMQ.Socket router;
    final int port;
    final int replayPort;
    final AtomicInteger subscribers = new AtomicInteger();
    final Thread service;
    volatile boolean running = true;

    Incarnation(int wantedPort, boolean replay, int wantedReplayPort) {
      try {
        ctx.setLinger(0);
        pub = ctx.createSocket(SocketType.PUB);
        pub.setLinger(0);
        pub.setSndHWM(100_000);
        String monitorAddress = "inproc://fake-vllm-monitor-" + MONITOR_IDS.incrementAndGet();
        pub.monitor(
            monitorAddress, ZMQ.EVENT_ACCEPTED | ZMQ.EVENT_CONNECTED | ZMQ.EVENT_DISCONNECTED);
        monitor = ctx.createSocket(SocketType.PAIR);
        monitor.connect(monitorAddress);
        if (connect) {
          // vLLM's rule: a non-wildcard endpoint is connected to; ZMQ retries until it binds.
          pub.connect(LOOPBACK + ":" + wantedPort);
          port = wantedPort;
        } else {
          port = bind(pub, wantedPort);
        }
        if (replay) {
          router = ctx.createSocket(SocketType.ROUTER);
          router.setLinger(0);
          // A ROUTER drops what exceeds its high-water mark: room for the whole buffer.
          router.setSndHWM(bufferSteps + 16);
          replayPort = bind(router, wantedReplayPort);
        } else {
          router = null;
          replayPort = -1;
        }
      } catch (RuntimeException e) {
        ctx.close();
        throw e;
      }
      service = new Thread(this::serve, "fake-vllm-" + port);
      service.setDaemon(true);
      service.start();
    }

    private int bind(ZMQ.Socket socket, int wanted) {
      if (wanted == 0) {
        return socket.bindToRandomPort(LOOPBACK);
      }
      socket.bind(LOOPBACK + ":" + wanted);
      return wanted;
    }

    private void serve() {
      try (ZMQ.Poller poller = ctx.createPoller(2)) {
        int monitorIndex = poller.register(monitor, ZMQ.Poller.POLLIN);
        int routerIndex = router == null ? -1 : poller.register(router, ZMQ.Poller.POLLIN);
        while (running) {
          if (poller.poll(20) <= 0) {
            continue;
          }
          if (poller.pollin(monitorIndex)) {
            drainMonitor();
          }
          if (routerIndex >= 0 && poller.pollin(routerIndex)) {
            serveReplay();
          }
        }
      } catch (RuntimeException e) {
        if (running) {
          log.warn("fake vllm publisher service failed port={}", port, e);
        }
      } finally {
        monitor.close();
        if (router != null) {
          router.close();
        }
      }
    }

    private void drainMonitor() {
      ZEvent event;
      while ((event = ZEvent.recv(monitor, ZMQ.DONTWAIT)) != null) {
        switch (event.getEvent()) {
          case ACCEPTED, CONNECTED -> subscribers.incrementAndGet();
          case DISCONNECTED -> subscribers.decrementAndGet();
          default -> {}
        }
      }
    }

    /**
     * vLLM's {@code _service_replay}: [identity, "", start_seq] in, buffered batches out in the
     * publisher's {@link ReplayLayout}.
     */
    private void serveReplay() {
      byte[] identity = router.recv(ZMQ.DONTWAIT);
      if (identity == null) {
        return;
      }
      List<byte[]> frames = new ArrayList<>();
      frames.add(identity);
      while (router.hasReceiveMore()) {
        frames.add(router.recv(0));
      }
      if (frames.size() != 3 || frames.get(2).length != 8) {
        log.warn("fake vllm publisher invalid replay request frames={}", frames.size());
        return;
      }
      replayRequests.incrementAndGet();
      long start = ByteBuffer.wrap(frames.get(2)).getLong();
      for (Buffered b : bufferedFrom(start)) {
        router.sendMore(identity);
        router.sendMore(EMPTY);
        switch (replayLayout) {
          case TOPIC -> router.sendMore(topic);
          case NO_TOPIC -> {}
          case GARBAGE -> {
            router.sendMore(EMPTY);
            router.sendMore(topic);
          }
        }
        router.sendMore(KvEventMessage.seqBytes(b.seq()));
        router.send(b.payload());
      }
      if (replayLayout == ReplayLayout.GARBAGE) {
        return;
      }
      router.sendMore(identity);
      router.sendMore(EMPTY);
      if (replayLayout == ReplayLayout.TOPIC) {
        router.sendMore(EMPTY);
      }
      router.sendMore(END_SEQ);
      router.send(EMPTY);
    }

    void close() {
      running = false;
      try {
        service.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      pub.close();
      ctx.close();
    }
  }
}
