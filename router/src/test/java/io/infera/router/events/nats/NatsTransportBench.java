package io.infera.router.events.nats;

import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.events.EventIngest;
import io.infera.router.events.FakeVllmPublisher;
import io.infera.router.kv.BenchIndex;
import io.infera.router.kv.Events;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.ViewSnapshot;
import io.infera.router.kv.WorkerId;
import io.infera.router.nats.EventSubjects;
import io.infera.router.nats.JetStreamSetup;
import io.infera.router.nats.NatsHeaders;
import io.infera.router.nats.NatsKeys;
import io.infera.router.testing.NatsServer;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Two numbers of the {@code nats} transport, with a real nats-server on this machine:
 *
 * <ol>
 *   <li>catch-up: a stream pre-filled with {@code blocks} blocks worth of vLLM batches ({@code
 *       perBatch} chained blocks each, spread over {@code workers} workers) is read and applied by
 *       one replica (transport + single index writer); time from start to warm;
 *   <li>warm start: {@code blocks} blocks held in the workers' snapshots (no events); time from
 *       start to warm (connect, read, decode and seed).
 * </ol>
 *
 * Run: {@code ./mvnw -B -q -pl router -am test-compile exec:exec -Dexec.executable=java
 * -Dexec.classpathScope=test -Dexec.args="-Xmx2g -cp %classpath
 * io.infera.router.events.nats.NatsTransportBench [blocks] [perBatch] [workers] [rounds]"}.
 * Defaults: 1 million blocks, 16 per batch, 8 workers, 3 rounds (the first warms the JIT); a fifth
 * argument sets the snapshots' blocks (default: the same). The index has no block cap here (the
 * router's default caps it at 1.8 M). The server, the publisher and the router share the machine's
 * cores.
 */
public final class NatsTransportBench {

  private static final int PAGE = 16;
  private static final String PREFIX = "infera.kv.events";
  private static final String STREAM = "BENCH";
  private static final String BUCKET = "bench_snapshots";

  private NatsTransportBench() {}

  public static void main(String[] args) throws Exception {
    int blocks = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int perBatch = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    int workers = args.length > 2 ? Integer.parseInt(args[2]) : 8;
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    int snapshotBlocks = args.length > 4 ? Integer.parseInt(args[4]) : blocks;
    Path dir = Files.createTempDirectory("nats-bench");
    Path conf = dir.resolve("nats.conf");
    // Snapshots of 125k blocks are ~2.3 MB: above NATS's 1 MB default payload.
    Files.writeString(conf, "max_payload: 64MB\n");
    try (NatsServer server = NatsServer.start(dir.resolve("nats"), "-c", conf.toString())) {
      RouterConfig.Nats cfg = new RouterConfig.Nats(server.url(), STREAM, PREFIX, BUCKET, true);
      List<WorkerInfo> fleet = new ArrayList<>();
      for (int w = 0; w < workers; w++) {
        fleet.add(NatsTransportIT.worker("w" + w, 1));
      }
      long batches = fill(server.url(), blocks, perBatch, workers);
      System.out.printf(
          "catch-up: %,d blocks in %,d batches of %d over %d workers%n",
          (long) blocks, batches, perBatch, workers);
      for (int r = 0; r < rounds; r++) {
        Result res = warmUp(cfg, fleet);
        System.out.printf(
            "  round %d: warm in %,d ms → %,.0f batches/s, %,.0f blocks/s applied (index: %,d"
                + " entries)%n",
            r + 1,
            res.millis(),
            batches * 1000.0 / res.millis(),
            blocks * 1000.0 / res.millis(),
            res.entries());
      }
      // Warm start from snapshots only: a fresh stream and bucket.
      try (Connection nc = Nats.connect(server.url())) {
        nc.jetStreamManagement().deleteStream(STREAM);
        nc.keyValueManagement().delete(BUCKET);
      }
      long bytes = snapshots(server.url(), snapshotBlocks, workers);
      System.out.printf(
          "warm start: %,d blocks in %d snapshots (%,d bytes)%n",
          (long) snapshotBlocks, workers, bytes);
      for (int r = 0; r < rounds; r++) {
        Result res = warmUp(cfg, fleet);
        System.out.printf(
            "  round %d: warm in %,d ms (index: %,d entries)%n",
            r + 1, res.millis(), res.entries());
      }
    }
  }

  private record Result(long millis, long entries) {}

  private static Result warmUp(RouterConfig.Nats cfg, List<WorkerInfo> fleet) throws Exception {
    System.gc();
    // No index cap: the bench measures what arrives, not the router's default budget.
    PrefixIndex index = BenchIndex.uncapped(PAGE);
    Set<WorkerId> ids = new HashSet<>();
    fleet.forEach(w -> ids.add(w.id()));
    NatsSettings s = NatsSettings.defaults();
    try (EventIngest ingest = new EventIngest(index, 100_000).start();
        NatsTransport t = new NatsTransport(cfg, PAGE, s)) {
      ingest.workers(ids, Set.of());
      long start = System.nanoTime();
      t.start(ingest);
      t.workersChanged(fleet);
      while (!t.warm()) {
        Thread.sleep(1);
      }
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      long entries = ingest.flush().thenApply(v -> index.stats().entries()).get();
      return new Result(ms, entries);
    }
  }

  /** Publishes the batches; returns how many. */
  private static long fill(String url, int blocks, int perBatch, int workers) throws Exception {
    try (Connection nc = Nats.connect(new Options.Builder().server(url).build())) {
      JetStreamSetup.ensureStream(
          nc, STREAM, PREFIX, new JetStreamSetup.Limits(Duration.ofHours(1), 2L << 30, 0));
      JetStreamSetup.ensureBucket(nc, BUCKET);
      JetStream js = nc.jetStream();
      ArrayDeque<CompletableFuture<PublishAck>> window = new ArrayDeque<>();
      long[] seq = new long[workers];
      long[] last = new long[workers];
      int[] tok = new int[workers];
      long batches = 0;
      long start = System.nanoTime();
      for (int done = 0; done < blocks; done += perBatch) {
        int w = (int) (batches % workers);
        int n = Math.min(perBatch, blocks - done);
        long[] hashes = new long[n];
        for (int i = 0; i < n; i++) {
          hashes[i] = ((long) w << 40) + seq[w] * perBatch + i + 1;
        }
        KvEvent e =
            Events.stored(
                PAGE, hashes, seq[w] == 0 ? null : last[w], Events.range(tok[w], n * PAGE));
        last[w] = hashes[n - 1];
        tok[w] += n * PAGE;
        Headers h = new Headers().put(NatsHeaders.ENGINE_SEQ, Long.toString(seq[w]++));
        window.add(
            js.publishAsync(
                NatsMessage.builder()
                    .subject(EventSubjects.subject(PREFIX, "it", WorkerId.of("w" + w), 0))
                    .headers(h)
                    .data(FakeVllmPublisher.batchPayload(1.0, 0, e))
                    .build()));
        if (window.size() >= 4096) {
          window.removeFirst().get(30, TimeUnit.SECONDS);
        }
        batches++;
      }
      for (CompletableFuture<PublishAck> f : window) {
        f.get(30, TimeUnit.SECONDS);
      }
      System.out.printf(
          "filled %,d batches in %,d ms%n",
          batches, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
      return batches;
    }
  }

  /** Writes one snapshot per worker; returns their total size. */
  private static long snapshots(String url, int blocks, int workers) throws Exception {
    try (Connection nc = Nats.connect(new Options.Builder().server(url).build())) {
      JetStreamSetup.ensureStream(nc, STREAM, PREFIX, JetStreamSetup.Limits.defaults());
      JetStreamSetup.ensureBucket(nc, BUCKET);
      SplittableRandom rnd = new SplittableRandom(7);
      long bytes = 0;
      for (int w = 0; w < workers; w++) {
        int n = blocks / workers;
        long[] router = new long[n];
        long[] engine = new long[n];
        for (int i = 0; i < n; i++) {
          router[i] = rnd.nextLong();
          engine[i] = rnd.nextLong();
        }
        byte[] value = ViewSnapshot.of(PAGE, n, 0, router, engine).encode();
        bytes += value.length;
        nc.keyValue(BUCKET).put(NatsKeys.snapshotKey("it", WorkerId.of("w" + w), 0), value);
      }
      return bytes;
    }
  }
}
