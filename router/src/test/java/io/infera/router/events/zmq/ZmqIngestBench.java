package io.infera.router.events.zmq;

import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.events.EventIngest;
import io.infera.router.events.FakeVllmPublisher;
import io.infera.router.kv.BenchIndex;
import io.infera.router.kv.Events;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.WorkerId;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Event ingest from many engines at once over ZMQ: {@code sources} PUB sockets on loopback (one per
 * simulated engine, in this process), each publishing {@code perSource} batches of {@code perBatch}
 * chained blocks in vLLM's wire format, into one router's {@code zmq} transport (one SUB per
 * source, the poller thread) and its index writer. Prints the time from the first publish until the
 * index has applied every batch, as batches and blocks per second, per round.
 *
 * <p>Run: {@code ./mvnw -B -q -pl router -am test-compile exec:exec -Dexec.executable=java
 * -Dexec.classpathScope=test -Dexec.args="-Xmx6g -cp %classpath
 * io.infera.router.events.zmq.ZmqIngestBench [sources] [perSource] [perBatch] [rounds]"}. Defaults:
 * 1,000 sources, 200 batches each, 16 blocks per batch, 3 rounds (the first warms the JIT). The
 * publishers, the poller and the index writer share the machine's cores; the publishers send
 * pre-encoded batches, round-robin over the sockets, as fast as ZMQ takes them.
 */
public final class ZmqIngestBench {

  private static final int PAGE = 16;
  private static final byte[] TOPIC =
      FakeVllmPublisher.DEFAULT_TOPIC.getBytes(StandardCharsets.UTF_8);

  private ZmqIngestBench() {}

  public static void main(String[] args) throws Exception {
    int sources = args.length > 0 ? Integer.parseInt(args[0]) : 1_000;
    int perSource = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    int perBatch = args.length > 2 ? Integer.parseInt(args[2]) : 16;
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    long batches = (long) sources * perSource;
    System.out.printf(
        "zmq ingest: %,d sources x %,d batches of %d blocks = %,d batches%n",
        sources, perSource, perBatch, batches);
    for (int round = 1; round <= rounds; round++) {
      long ms = round(sources, perSource, perBatch, round);
      System.out.printf(
          "  round %d: all applied in %,d ms -> %,.0f batches/s, %,.0f blocks/s%n",
          round, ms, batches * 1000.0 / ms, batches * perBatch * 1000.0 / ms);
    }
  }

  private static long round(int sources, int perSource, int perBatch, int round) throws Exception {
    byte[][][] payloads = payloads(sources, perSource, perBatch, round);
    PrefixIndex index = BenchIndex.uncapped(PAGE);
    try (ZContext ctx = new ZContext(1);
        EventIngest ingest = new EventIngest(index, 100_000).start();
        ZmqTransport transport = new ZmqTransport()) {
      List<ZMQ.Socket> pubs = new ArrayList<>();
      List<WorkerInfo> fleet = new ArrayList<>();
      Set<WorkerId> ids = new HashSet<>();
      for (int s = 0; s < sources; s++) {
        ZMQ.Socket pub = ctx.createSocket(SocketType.PUB);
        pub.setSndHWM(perSource + 16); // never drop: the bench measures ingest, not loss
        int port = pub.bindToRandomPort("tcp://127.0.0.1");
        pubs.add(pub);
        WorkerId id = WorkerId.of("w" + s);
        ids.add(id);
        fleet.add(
            new WorkerInfo(
                id,
                "http://127.0.0.1:1",
                Role.MIXED,
                "vllm",
                1,
                "tcp://127.0.0.1:" + port,
                null,
                WorkerInfo.Readiness.READY,
                "bench"));
      }
      ingest.workers(ids, Set.of());
      transport.start(ingest);
      transport.workersChanged(fleet);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (!transport.warm()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the transport did not connect to every source");
        }
        Thread.sleep(10);
      }
      Thread.sleep(500); // ZMQ's subscriptions reach the publishers after the connect
      long start = System.nanoTime();
      for (int b = 0; b < perSource; b++) {
        byte[] seq = KvEventMessage.seqBytes(b);
        for (int s = 0; s < sources; s++) {
          ZMQ.Socket pub = pubs.get(s);
          pub.sendMore(TOPIC);
          pub.sendMore(seq);
          pub.send(payloads[s][b]);
        }
      }
      long want = (long) sources * perSource;
      while (applied(ingest, ids) < want) {
        if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(300)) {
          throw new IllegalStateException(
              "only " + applied(ingest, ids) + " of " + want + " batches applied in 300 s");
        }
        Thread.sleep(1);
      }
      return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
  }

  private static long applied(EventIngest ingest, Set<WorkerId> ids) {
    long n = 0;
    for (WorkerId id : ids) {
      n += ingest.applied(id);
    }
    return n;
  }

  /** Every source's batches, encoded once: chained stored blocks, distinct per source and round. */
  private static byte[][][] payloads(int sources, int perSource, int perBatch, int round) {
    byte[][][] out = new byte[sources][perSource][];
    for (int s = 0; s < sources; s++) {
      long last = 0;
      for (int b = 0; b < perSource; b++) {
        long[] hashes = new long[perBatch];
        for (int i = 0; i < perBatch; i++) {
          hashes[i] = ((long) round << 56) + ((long) s << 32) + (long) b * perBatch + i + 1;
        }
        KvEvent e =
            Events.stored(
                PAGE,
                hashes,
                b == 0 ? null : last,
                Events.range(b * perBatch * PAGE, perBatch * PAGE));
        last = hashes[perBatch - 1];
        out[s][b] = FakeVllmPublisher.batchPayload(1.0, null, e);
      }
    }
    return out;
  }
}
