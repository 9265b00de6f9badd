package io.infera.router.relay;

import io.infera.router.config.Role;
import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.events.Delivery;
import io.infera.router.events.EventSink;
import io.infera.router.events.FakeVllmPublisher;
import io.infera.router.events.nats.NatsSettings;
import io.infera.router.events.nats.NatsTransport;
import io.infera.router.kv.EventDecodeException;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEvent.BlockRemoved;
import io.infera.router.kv.KvEvent.BlockStored;
import io.infera.router.kv.KvEventDecoder;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.WorkerId;
import io.infera.router.nats.EventSubjects;
import io.infera.router.testing.NatsServer;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Relay cost at a fixed event rate: a fake vLLM engine publishes {@code rate} one-event batches per
 * second (default 10,000) through {@code infera-router relay}, run as its own process so that its
 * CPU can be read from /proc, into a real nats-server. Prints the relay process's CPU (cores busy =
 * CPU time / wall time) over the measured window, and the lag from the engine's publish to the
 * batch's application in a router's index (the router's NATS transport consuming the stream,
 * decoding and applying each batch), p50/p99/p99.9/max.
 *
 * <p>Run: {@code ./mvnw -B -q -pl router -am test-compile exec:exec -Dexec.executable=java
 * -Dexec.classpathScope=test -Dexec.args="-cp %classpath io.infera.router.relay.RelayBench [rate]
 * [seconds]"} (add {@code -Drelaybench.jvmArgs="..."} before {@code -cp} to pass JVM flags to the
 * relay, e.g. a flight recording). The engine, nats-server, the consumer and the relay share the
 * machine's cores.
 */
public final class RelayBench {

  private static final int BLOCK_SIZE = 16;
  private static final WorkerId WORKER = WorkerId.of("bench-engine-0");

  private RelayBench() {}

  public static void main(String[] args) throws Exception {
    int rate = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int warmup = 5;
    int total = rate * (warmup + seconds);
    Path dir = Files.createTempDirectory("relaybench");
    try (NatsServer nats = NatsServer.start(dir.resolve("nats"));
        FakeVllmPublisher engine = FakeVllmPublisher.builder().bufferSteps(20_000).start()) {
      List<String> cmd = new ArrayList<>();
      cmd.add(ProcessHandle.current().info().command().orElse("java"));
      cmd.add("-Xmx512m");
      String jvmArgs = System.getProperty("relaybench.jvmArgs", "");
      if (!jvmArgs.isBlank()) {
        cmd.addAll(List.of(jvmArgs.trim().split("\\s+")));
      }
      cmd.addAll(
          List.of(
              "-cp",
              System.getProperty("java.class.path"),
              "io.infera.router.cli.InferaRouter",
              "relay",
              "--zmq",
              engine.endpoint(),
              "--replay",
              engine.replayEndpoint(),
              "--nats",
              nats.url(),
              "--worker-id",
              WORKER.value(),
              "--block-size",
              Integer.toString(BLOCK_SIZE)));
      Process relay =
          new ProcessBuilder(cmd)
              .redirectOutput(new File("/tmp/relaybench-relay.log"))
              .redirectErrorStream(true)
              .start();
      long[] publishedAt = new long[total + 1];
      AtomicLongArray receivedAt = new AtomicLongArray(total + 1);
      AtomicLong received = new AtomicLong();
      AtomicLong outOfOrder = new AtomicLong();
      AtomicLong markers = new AtomicLong();
      AtomicLong lastSeq = new AtomicLong(-1);
      // The router side: the production NATS transport, each batch decoded and applied to a
      // prefix index on the transport's thread (the router's EventIngest adds one queue hop).
      PrefixIndex index = new PrefixIndex(BLOCK_SIZE);
      EventSink sink =
          d -> {
            if (!(d instanceof Delivery.Streamed m)) {
              throw new IllegalStateException("streamed messages only");
            }
            List<byte[]> frames = m.frames();
            if (frames.size() != 3) {
              markers.incrementAndGet();
              return;
            }
            long seq = ByteBuffer.wrap(frames.get(1)).getLong();
            try {
              index.apply(m.worker(), seq, KvEventDecoder.decode(frames.get(2)));
            } catch (EventDecodeException e) {
              throw new IllegalStateException(e);
            }
            long now = System.nanoTime();
            if (seq <= lastSeq.getAndSet(seq)) {
              outOfOrder.incrementAndGet();
            }
            if (seq <= total) {
              receivedAt.compareAndSet((int) seq, 0, now);
            }
            received.incrementAndGet();
          };
      RouterConfig.Nats natsConfig =
          new RouterConfig.Nats(
              nats.url(),
              EventSubjects.DEFAULT_STREAM,
              EventSubjects.DEFAULT_PREFIX,
              EventSubjects.DEFAULT_BUCKET,
              false);
      try (NatsTransport router =
          new NatsTransport(natsConfig, BLOCK_SIZE, NatsSettings.defaults())) {
        router.workersChanged(
            List.of(
                new WorkerInfo(
                    WORKER,
                    "http://127.0.0.1:1",
                    Role.MIXED,
                    "vllm",
                    1,
                    null,
                    null,
                    WorkerInfo.Readiness.READY,
                    "bench")));
        router.start(sink);
        // ZMQ's slow joiner: probe until the relay's subscription is live (the probes are part of
        // the sequence; the relay's catch-up replay brings the early ones).
        int seq = 0;
        while (received.get() == 0) {
          publishedAt[seq] = System.nanoTime();
          engine.publishRaw(seq, payload(seq));
          seq++;
          Thread.sleep(100);
        }
        int first = seq;
        long periodNanos = TimeUnit.SECONDS.toNanos(1) / rate;
        long start = System.nanoTime();
        long measureFrom = 0;
        long cpuFrom = 0;
        int measureFirstSeq = 0;
        for (; seq < total; seq++) {
          long due = start + (seq - first) * periodNanos;
          long wait = due - System.nanoTime();
          if (wait > 50_000) {
            LockSupport.parkNanos(wait - 20_000);
          }
          if (seq - first == warmup * rate) {
            measureFrom = System.nanoTime();
            cpuFrom = cpuNanos(relay.pid());
            measureFirstSeq = seq;
          }
          publishedAt[seq] = System.nanoTime();
          engine.publishRaw(seq, payload(seq));
        }
        long measureTo = System.nanoTime();
        long cpuTo = cpuNanos(relay.pid());
        long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (received.get() < total && System.nanoTime() < waitUntil) {
          Thread.sleep(50);
        }
        double wall = (measureTo - measureFrom) / 1e9;
        double achieved = (total - measureFirstSeq) / wall;
        long[] lags = new long[total - measureFirstSeq];
        int n = 0;
        for (int s = measureFirstSeq; s < total; s++) {
          long r = receivedAt.get(s);
          if (r != 0) {
            lags[n++] = r - publishedAt[s];
          }
        }
        lags = Arrays.copyOf(lags, n);
        Arrays.sort(lags);
        System.out.printf(
            "relay bench: %d one-event batches/s offered (%.0f achieved) for %.1f s after %d s"
                + " warm-up%n",
            rate, achieved, wall, warmup);
        System.out.printf(
            "  relay process CPU: %.3f cores (%.1f%% of one core), %.1f us CPU per event%n",
            (cpuTo - cpuFrom) / 1e9 / wall,
            100.0 * (cpuTo - cpuFrom) / 1e9 / wall,
            (cpuTo - cpuFrom) / 1e3 / (total - measureFirstSeq));
        System.out.printf(
            "  engine publish -> applied in the router's index: p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms,"
                + " max %.2f ms (%d of %d measured batches delivered)%n",
            pct(lags, 0.50),
            pct(lags, 0.99),
            pct(lags, 0.999),
            lags.length == 0 ? 0 : lags[lags.length - 1] / 1e6,
            n,
            total - measureFirstSeq);
        System.out.printf(
            "  stream: %d batches received of %d, %d out of order, %d resync markers%n",
            received.get(), total, outOfOrder.get(), markers.get());
      } finally {
        relay.destroy();
        relay.waitFor(20, TimeUnit.SECONDS);
        relay.destroyForcibly();
      }
      String log = Files.readString(Path.of("/tmp/relaybench-relay.log"));
      int at = log.lastIndexOf("relay closed stats=");
      if (at >= 0) {
        System.out.println("  " + log.substring(at, log.indexOf('\n', at)).strip());
      }
    }
  }

  /**
   * Batch {@code i}: one event. Even batches store a 16-token block (chains of 8), odd ones remove
   * the block stored 500 batches earlier, so the view stays around 250 blocks.
   */
  private static byte[] payload(int i) {
    KvEvent e;
    if (i % 2 == 0) {
      long block = i / 2;
      int[] tokens = new int[BLOCK_SIZE];
      for (int t = 0; t < BLOCK_SIZE; t++) {
        tokens[t] = (int) (block * BLOCK_SIZE + t);
      }
      Long parent = block % 8 == 0 ? null : 1_000_000 + block - 1;
      e =
          new BlockStored(
              new long[] {1_000_000 + block},
              parent,
              tokens,
              BLOCK_SIZE,
              null,
              null,
              null,
              null,
              null,
              null);
    } else {
      e = new BlockRemoved(new long[] {1_000_000 + (i - 1) / 2 - 250}, null, null);
    }
    return FakeVllmPublisher.batchPayload(System.currentTimeMillis() / 1000.0, 0, e);
  }

  private static double pct(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    return sorted[Math.min(sorted.length - 1, (int) (p * sorted.length))] / 1e6;
  }

  /** utime + stime of a process, from /proc (clock ticks of 10 ms). */
  private static long cpuNanos(long pid) throws Exception {
    String[] f = Files.readString(Path.of("/proc/" + pid + "/stat")).split("\\) ")[1].split(" ");
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
  }
}
