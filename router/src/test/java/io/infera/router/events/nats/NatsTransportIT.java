package io.infera.router.events.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.config.Role;
import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.events.EventIngest;
import io.infera.router.events.FakeVllmPublisher;
import io.infera.router.kv.DropReason;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.Events;
import io.infera.router.kv.IndexStats;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.SourceId;
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
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code nats} transport against a real nats-server: snapshot seeding after retention, skip by
 * watermark, garbage, undiscovered and purged workers, resync markers, readiness and a server kill.
 * The index behind it is the real one (single writer).
 */
public class NatsTransportIT {

  static final String PREFIX = "infera.kv.events";
  static final String STREAM = "KV_IT";
  static final String BUCKET = "kv_it_snapshots";
  static final int PAGE = 16;

  @TempDir Path dir;

  private NatsServer server;
  private Publisher pub;
  private PrefixIndex index;
  private EventIngest ingest;
  private NatsTransport transport;
  private final Set<WorkerId> current = new HashSet<>();

  @BeforeEach
  void startServer() throws Exception {
    server = NatsServer.start(dir.resolve("nats"));
    pub = new Publisher(server.url(), PREFIX, 0);
  }

  /** Recreates the stream keeping only {@code maxMessages} messages (retention). */
  private void smallStream(long maxMessages) throws Exception {
    pub.nc.jetStreamManagement().deleteStream(STREAM);
    JetStreamSetup.ensureStream(
        pub.nc,
        STREAM,
        PREFIX,
        new JetStreamSetup.Limits(Duration.ofHours(1), 1 << 24, maxMessages));
  }

  @AfterEach
  void stop() throws Exception {
    if (transport != null) {
      transport.close();
    }
    if (ingest != null) {
      ingest.close();
    }
    pub.close();
    server.close();
  }

  /** Test tuning: quick polls, checks and back-off. */
  public static NatsSettings settings() {
    return new NatsSettings(
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofSeconds(1),
        Duration.ofSeconds(5),
        Duration.ofMillis(300),
        Duration.ofSeconds(3),
        10_000,
        64L << 20,
        Duration.ofSeconds(30),
        500,
        JetStreamSetup.Limits.defaults());
  }

  static RouterConfig.Nats natsConfig(String url) {
    return new RouterConfig.Nats(url, STREAM, PREFIX, BUCKET, true);
  }

  private void startRouter(String... workers) {
    index = new PrefixIndex(PAGE);
    ingest = new EventIngest(index, 10_000).start();
    transport = new NatsTransport(natsConfig(server.url()), PAGE, settings());
    transport.start(ingest);
    workers(workers);
  }

  /** What RouterRuntime does on a discovery change: the ingest first, then the transport. */
  private void workers(String... ids) {
    Set<WorkerId> next = Arrays.stream(ids).map(WorkerId::of).collect(Collectors.toSet());
    Set<WorkerId> removed = new HashSet<>(current);
    removed.removeAll(next);
    current.clear();
    current.addAll(next);
    ingest.workers(next, removed);
    List<WorkerInfo> infos = new ArrayList<>();
    for (String id : ids) {
      infos.add(worker(id, 1));
    }
    transport.workersChanged(infos);
  }

  static WorkerInfo worker(String id, int dp) {
    return new WorkerInfo(
        WorkerId.of(id),
        "http://127.0.0.1:1",
        Role.MIXED,
        "vllm",
        dp,
        null,
        null,
        WorkerInfo.Readiness.READY,
        "it");
  }

  private long[] view(String worker) throws Exception {
    return ingest.onWriter(i -> i.viewHashes(SourceId.of(worker, 0))).get(10, TimeUnit.SECONDS);
  }

  private IndexStats.SourceStats stats(String worker) {
    return index.stats().sources().stream()
        .filter(s -> s.source().equals(SourceId.of(worker, 0)))
        .findFirst()
        .orElse(null);
  }

  private NatsSourceStatus status(String worker) {
    return transport.sources().stream()
        .filter(s -> s.worker().equals(WorkerId.of(worker)) && s.rank() == 0)
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aSnapshotSeedsARouterThatStartsAfterRetentionDroppedTheOldEvents() throws Exception {
    // The stream keeps only 5 messages: a new router cannot rebuild the view from it alone.
    smallStream(5);
    Chain chain = new Chain("a", 0, 1000);
    Reference ref = new Reference();
    long w = 0;
    for (int i = 0; i < 15; i++) {
      w = chain.publishNext(pub, ref);
    }
    pub.putSnapshot(ref.snapshot("a", w), "a", 0);
    for (int i = 0; i < 5; i++) {
      chain.publishNext(pub, ref);
    }
    startRouter("a");
    await().atMost(Duration.ofSeconds(15)).until(transport::warm);
    assertThat(view("a")).containsExactly(ref.view("a"));
    assertThat(index.stats().dropped(DropReason.UNKNOWN_PARENT)).isZero();
    assertThat(transport.counters().snapshotsSeeded()).isEqualTo(1);
    assertThat(transport.counters().lostMessages()).isZero();
    NatsSourceStatus s = status("a");
    assertThat(s.degraded()).isFalse();
    assertThat(s.snapshotStreamSeq()).isEqualTo(w);
    assertThat(s.lastEngineSeq()).isEqualTo(19);
    assertThat(s.lastStreamSeq()).isEqualTo(20);
    assertThat(s.lagMessages()).isZero();
    assertThat(s.snapshotAgeSeconds()).isNotNull().isLessThan(60.0);
    // Live events keep extending the seeded view.
    chain.publishNext(pub, ref);
    await().atMost(Duration.ofSeconds(10)).until(() -> view("a").length == 21);
    assertThat(view("a")).containsExactly(ref.view("a"));
  }

  @Test
  void withoutASnapshotTheRetainedEventsAloneLeaveTheSourceDegraded() throws Exception {
    smallStream(5);
    Chain chain = new Chain("a", 0, 1000);
    Reference ref = new Reference();
    for (int i = 0; i < 20; i++) {
      chain.publishNext(pub, ref);
    }
    startRouter("a");
    await().atMost(Duration.ofSeconds(15)).until(transport::warm);
    assertThat(transport.counters().lostMessages()).isEqualTo(15);
    assertThat(status("a").degraded()).isTrue();
    assertThat(index.stats().dropped(DropReason.UNKNOWN_PARENT)).isEqualTo(5);
    // The relay writes a snapshot later: the degraded source is repaired from it.
    pub.putSnapshot(ref.snapshot("a", 20), "a", 0);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !status("a").degraded() && view("a").length == 20);
    assertThat(view("a")).containsExactly(ref.view("a"));
  }

  @Test
  void everySourceSkipsWhatItsOwnSnapshotCovers() throws Exception {
    Chain a = new Chain("a", 0, 1000);
    Chain b = new Chain("b", 0, 5000);
    Reference ref = new Reference();
    long wa = 0;
    long wb = 0;
    for (int i = 0; i < 10; i++) {
      wa = a.publishNext(pub, ref);
      if (i < 4) {
        wb = b.publishNext(pub, ref);
      }
    }
    pub.putSnapshot(ref.snapshot("a", wa), "a", 0);
    pub.putSnapshot(ref.snapshot("b", wb), "b", 0);
    for (int i = 0; i < 3; i++) {
      a.publishNext(pub, ref);
      b.publishNext(pub, ref);
    }
    startRouter("a", "b");
    await().atMost(Duration.ofSeconds(15)).until(transport::warm);
    assertThat(view("a")).containsExactly(ref.view("a"));
    assertThat(view("b")).containsExactly(ref.view("b"));
    // b's snapshot is older: the stream was read from after it, and a's covered events skipped.
    assertThat(status("a").coveredSkipped()).isEqualTo(6);
    assertThat(status("b").coveredSkipped()).isZero();
    assertThat(index.stats().dropped(DropReason.DUPLICATE_BATCH)).isZero();
    assertThat(stats("a").batches()).isEqualTo(3);
  }

  @Test
  void garbageSubjectsAndPayloadsAreCountedAndSkipped() throws Exception {
    startRouter("a");
    await().atMost(Duration.ofSeconds(15)).until(transport::warm);
    pub.raw(PREFIX + ".it.not-base64!.0", null, new byte[] {1});
    pub.raw(PREFIX + ".it.only-three", null, new byte[] {1});
    pub.raw(PREFIX + ".it." + EventSubjects.token(WorkerId.of("a")) + ".x", null, new byte[] {1});
    pub.publish(WorkerId.of("a"), 0, 0L, "not msgpack".getBytes(StandardCharsets.UTF_8));
    pub.publish(WorkerId.of("a"), 0, 1L, new byte[0]);
    Headers bad = new Headers().put(NatsHeaders.ENGINE_SEQ, "seven");
    Chain chain = new Chain("a", 0, 1000);
    chain.engineSeq = 2;
    Reference ref = new Reference();
    chain.publishNext(pub, ref);
    pub.raw(
        EventSubjects.subject(PREFIX, "it", WorkerId.of("a"), 0), bad, new byte[] {(byte) 0xc1});
    chain.publishNext(pub, ref);
    await().atMost(Duration.ofSeconds(10)).until(() -> view("a").length == 2);
    assertThat(transport.counters().garbageSubjects()).isEqualTo(3);
    assertThat(transport.counters().badHeaders()).isEqualTo(1);
    assertThat(ingest.decodeErrors()).isEqualTo(3);
    assertThat(index.dropped(WorkerId.of("a"), DropReason.DECODE_ERROR)).isEqualTo(3);
    assertThat(view("a")).containsExactly(ref.view("a"));
  }

  @Test
  void aWorkerDiscoveredAfterItsEventsArrivedGetsThem() throws Exception {
    startRouter("a");
    await().atMost(Duration.ofSeconds(15)).until(transport::warm);
    Chain b = new Chain("b", 0, 5000);
    Reference ref = new Reference();
    for (int i = 0; i < 3; i++) {
      b.publishNext(pub, ref);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> transport.counters().heldMessages() == 3);
    assertThat(stats("b")).isNull();
    workers("a", "b");
    await().atMost(Duration.ofSeconds(10)).until(() -> view("b").length == 3);
    assertThat(view("b")).containsExactly(ref.view("b"));
    assertThat(transport.counters().heldMessages()).isZero();
    assertThat(transport.counters().undiscoveredDropped()).isZero();
    assertThat(status("b").degraded()).isFalse();
  }

  @Test
  void aWorkerThatAppearsLateIsSeededFromItsSnapshotThenItsHeldEvents() throws Exception {
    Chain b = new Chain("b", 0, 5000);
    Reference ref = new Reference();
    long w = 0;
    for (int i = 0; i < 4; i++) {
      w = b.publishNext(pub, ref);
    }
    pub.putSnapshot(ref.snapshot("b", w), "b", 0);
    startRouter("a");
    await().atMost(Duration.ofSeconds(15)).until(transport::warm);
    b.publishNext(pub, ref);
    await().atMost(Duration.ofSeconds(10)).until(() -> transport.counters().heldMessages() == 5);
    workers("a", "b");
    await().atMost(Duration.ofSeconds(10)).until(() -> view("b").length == 5);
    assertThat(view("b")).containsExactly(ref.view("b"));
    // The snapshot stood for the first four held events; the fifth was applied on top.
    assertThat(status("b").coveredSkipped()).isEqualTo(4);
    assertThat(status("b").messages()).isEqualTo(1);
    assertThat(status("b").degraded()).isFalse();
  }

  @Test
  void aPurgedWorkersSnapshotNeverSeedsItAgain() throws Exception {
    Chain b = new Chain("b", 0, 5000);
    Reference ref = new Reference();
    long w = 0;
    for (int i = 0; i < 3; i++) {
      w = b.publishNext(pub, ref);
    }
    pub.putSnapshot(ref.snapshot("b", w), "b", 0);
    startRouter("a", "b");
    await().atMost(Duration.ofSeconds(15)).until(transport::warm);
    assertThat(view("b")).hasSize(3);
    workers("a");
    await().atMost(Duration.ofSeconds(10)).until(() -> stats("b") == null);
    // Back again, with only the snapshot from before its removal in the bucket.
    workers("a", "b");
    Thread.sleep(500);
    assertThat(view("b")).isEmpty();
    assertThat(transport.counters().snapshotsSeeded()).isEqualTo(1);
    // A snapshot written after it came back does seed it.
    b.publishNext(pub, ref);
    await().atMost(Duration.ofSeconds(10)).until(() -> status("b").degraded());
    pub.putSnapshot(ref.snapshot("b", w + 1), "b", 0);
    await().atMost(Duration.ofSeconds(10)).until(() -> view("b").length == 4);
    assertThat(transport.counters().snapshotsSeeded()).isEqualTo(2);
  }

  @Test
  void aResyncMarkerReseedsTheSourceFromItsFreshSnapshot() throws Exception {
    startRouter("a");
    await().atMost(Duration.ofSeconds(15)).until(transport::warm);
    Chain chain = new Chain("a", 0, 1000);
    Reference ref = new Reference();
    long w = 0;
    for (int i = 0; i < 3; i++) {
      w = chain.publishNext(pub, ref);
    }
    // The relay's buffer overflowed: two batches never reached the stream, but its view has them.
    chain.skipNext(ref);
    chain.skipNext(ref);
    pub.putSnapshot(ref.snapshot("a", w), "a", 0);
    pub.resync(WorkerId.of("a"), 0);
    chain.publishNext(pub, ref);
    await().atMost(Duration.ofSeconds(10)).until(() -> view("a").length == 6);
    assertThat(view("a")).containsExactly(ref.view("a"));
    assertThat(transport.counters().resyncMarkers()).isEqualTo(1);
    assertThat(transport.counters().resyncs()).isEqualTo(1);
    assertThat(ingest.decodeErrors()).isZero();
    assertThat(index.stats().dropped(DropReason.UNKNOWN_PARENT)).isZero();
    assertThat(status("a").degraded()).isFalse();
    assertThat(stats("a").degraded()).isFalse();
  }

  @Test
  void warmOnlyOnceTheStreamIsReadAndApplied() throws Exception {
    Chain chain = new Chain("a", 0, 1000);
    Reference ref = new Reference();
    int n = 3000;
    for (int i = 0; i < n; i++) {
      chain.publishNext(pub, ref);
    }
    startRouter("a");
    assertThat(transport.warm()).isFalse();
    assertThat(transport.notWarmReason()).isNotNull();
    await()
        .pollInterval(Duration.ofMillis(5))
        .atMost(Duration.ofSeconds(30))
        .until(transport::warm);
    // Everything published before the start was applied by the time warm turned true.
    assertThat(ingest.applied(WorkerId.of("a"))).isEqualTo(n);
    assertThat(transport.notWarmReason()).isNull();
    assertThat(transport.streamStatus().caughtUp()).isTrue();
  }

  @Test
  void aKilledServerIsReconnectedAndNothingIsAppliedTwiceOrMissed() throws Exception {
    startRouter("a");
    await().atMost(Duration.ofSeconds(15)).until(transport::warm);
    Chain chain = new Chain("a", 0, 1000);
    Reference ref = new Reference();
    for (int i = 0; i < 10; i++) {
      chain.publishNext(pub, ref);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> view("a").length == 10);
    pub.close();
    server.kill();
    Thread.sleep(300);
    server.restart();
    pub = new Publisher(server.url(), PREFIX, 0);
    for (int i = 0; i < 10; i++) {
      chain.publishNext(pub, ref);
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> view("a").length == 20);
    Thread.sleep(500);
    assertThat(view("a")).containsExactly(ref.view("a"));
    assertThat(ingest.applied(WorkerId.of("a"))).isEqualTo(20);
    assertThat(index.stats().dropped(DropReason.DUPLICATE_BATCH)).isZero();
    assertThat(transport.counters().reconnects()).isGreaterThanOrEqualTo(1);
    assertThat(transport.counters().lostMessages()).isZero();
    assertThat(status("a").degraded()).isFalse();
  }

  @Test
  void aRecreatedStreamIsReadFromItsStart() throws Exception {
    startRouter("a");
    await().atMost(Duration.ofSeconds(15)).until(transport::warm);
    Chain chain = new Chain("a", 0, 1000);
    Reference ref = new Reference();
    for (int i = 0; i < 3; i++) {
      chain.publishNext(pub, ref);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> view("a").length == 3);
    pub.nc.jetStreamManagement().deleteStream(STREAM);
    JetStreamSetup.ensureStream(pub.nc, STREAM, PREFIX, JetStreamSetup.Limits.defaults());
    // The new stream numbers from 1 again: nothing of it may be taken for already processed.
    chain.publishNext(pub, ref);
    chain.publishNext(pub, ref);
    await().atMost(Duration.ofSeconds(15)).until(() -> view("a").length == 5);
    assertThat(view("a")).containsExactly(ref.view("a"));
    assertThat(status("a").degraded()).isFalse();
    assertThat(status("a").lastStreamSeq()).isEqualTo(2);
    assertThat(index.stats().dropped(DropReason.DUPLICATE_BATCH)).isZero();
  }

  // ---------------------------------------------------------------- helpers

  /** One source's chain of single-block batches, published like a relay would. */
  public static final class Chain {
    final WorkerId worker;
    final int rank;
    final long base;
    long engineSeq;
    int blocks;

    public Chain(String worker, int rank, long base) {
      this.worker = WorkerId.of(worker);
      this.rank = rank;
      this.base = base;
    }

    KvEvent next() {
      long hash = base + blocks;
      Long parent = blocks == 0 ? null : base + blocks - 1;
      KvEvent e = Events.stored(PAGE, new long[] {hash}, parent, Events.range(blocks * PAGE, PAGE));
      blocks++;
      return e;
    }

    /** Publishes the next batch; returns its stream sequence. */
    public long publishNext(Publisher p, Reference ref) throws Exception {
      KvEvent e = next();
      long seq = engineSeq++;
      ref.apply(worker, rank, seq, e);
      return p.publish(worker, rank, seq, FakeVllmPublisher.batchPayload(1.0, rank, e));
    }

    /** The next batch reaches the reference (the relay's view) but not the stream. */
    void skipNext(Reference ref) {
      ref.apply(worker, rank, engineSeq++, next());
    }
  }

  /** The view a relay keeps: the same index code, fed directly. */
  public static final class Reference {
    final PrefixIndex index = new PrefixIndex(PAGE);

    void apply(WorkerId w, int rank, long seq, KvEvent e) {
      index.apply(w, seq, new EventBatch(0, List.of(e), rank, 0));
    }

    public ViewSnapshot snapshot(String worker, long streamSeq) {
      return index.snapshot(SourceId.of(worker, 0), streamSeq);
    }

    public long[] view(String worker) {
      return index.viewHashes(SourceId.of(worker, 0));
    }
  }

  /** Publishes to the event stream and the snapshot bucket as a relay would. */
  public static final class Publisher implements AutoCloseable {
    final Connection nc;
    final JetStream js;
    final String prefix;

    /** The pool token of what it publishes: the test workers' pool ({@link #worker}). */
    public volatile String pool = "it";

    /**
     * @param maxMessages the stream's message limit if this creates it (0 = none)
     */
    public Publisher(String url, String prefix, long maxMessages) throws Exception {
      this.nc = Nats.connect(new Options.Builder().server(url).maxReconnects(-1).build());
      this.prefix = prefix;
      JetStreamSetup.ensureStream(
          nc,
          STREAM,
          prefix,
          new JetStreamSetup.Limits(
              EventSubjects.STREAM_MAX_AGE, EventSubjects.STREAM_MAX_BYTES, maxMessages));
      JetStreamSetup.ensureBucket(nc, BUCKET);
      this.js = nc.jetStream();
    }

    public long publish(WorkerId w, int rank, Long engineSeq, byte[] payload) throws Exception {
      Headers h = new Headers().put(NatsHeaders.ENGINE, "vllm");
      h.put(NatsHeaders.BLOCK_SIZE, Integer.toString(PAGE));
      if (engineSeq != null) {
        h.put(NatsHeaders.ENGINE_SEQ, Long.toString(engineSeq));
      }
      return raw(EventSubjects.subject(prefix, pool, w, rank), h, payload);
    }

    public long raw(String subject, Headers h, byte[] payload) throws Exception {
      return js.publish(NatsMessage.builder().subject(subject).headers(h).data(payload).build())
          .getSeqno();
    }

    public long resync(WorkerId w, int rank) throws Exception {
      Headers h = new Headers().put(NatsHeaders.RESYNC, "overflow");
      return raw(EventSubjects.subject(prefix, pool, w, rank), h, new byte[0]);
    }

    public long putSnapshot(ViewSnapshot s, String worker, int rank) throws Exception {
      return nc.keyValue(BUCKET)
          .put(NatsKeys.snapshotKey(pool, WorkerId.of(worker), rank), s.encode());
    }

    @Override
    public void close() throws InterruptedException {
      nc.close();
    }
  }
}
