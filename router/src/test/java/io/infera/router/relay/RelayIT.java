package io.infera.router.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.config.Role;
import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.events.EventIngest;
import io.infera.router.events.FakeVllmPublisher;
import io.infera.router.events.FakeVllmPublisher.ReplayLayout;
import io.infera.router.events.nats.NatsTransport;
import io.infera.router.events.nats.NatsTransportIT;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEventDecoder;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.ViewSnapshot;
import io.infera.router.kv.WorkerId;
import io.infera.router.nats.EventSubjects;
import io.infera.router.nats.JetStreamSetup;
import io.infera.router.nats.NatsHeaders;
import io.infera.router.nats.RelayProtocol;
import io.infera.router.relay.StreamClient.Stored;
import io.infera.router.testing.NatsServer;
import io.nats.client.Connection;
import io.nats.client.Nats;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The relay between a fake vLLM engine (ZMQ PUB + replay ROUTER) and a real nats-server: order,
 * headers and verbatim payloads per rank, gaps filled from replay, snapshots that seed a router to
 * the relay's view, and nothing lost or duplicated across a NATS crash, a relay restart and an
 * overflow.
 */
@Timeout(90)
class RelayIT {

  private static final WorkerId W = WorkerId.of("vllm-decode-0");
  private static final int BS = 4;

  @TempDir Path dir;

  private final List<AutoCloseable> resources = new ArrayList<>();
  private final EngineScript engine = new EngineScript(BS);

  @AfterEach
  void closeAll() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
  }

  private <T extends AutoCloseable> T track(T r) {
    resources.add(r);
    return r;
  }

  private RelayOptions.Builder options(NatsServer nats, FakeVllmPublisher pub) {
    return RelayOptions.builder(pub.endpoint(), nats.url(), W)
        .replayEndpoint(pub.replayEndpoint())
        .blockSize(BS)
        .snapshotMinInterval(Duration.ZERO)
        .publishTimeout(Duration.ofSeconds(1))
        .reconnectWait(Duration.ofMillis(100))
        .reconnectWaitMax(Duration.ofSeconds(1))
        .drainTimeout(Duration.ofSeconds(5));
  }

  private Relay startRelay(RelayOptions o) {
    Relay relay = track(new Relay(o));
    relay.start();
    await().atMost(Duration.ofSeconds(20)).until(relay::ready);
    return relay;
  }

  /** Publishes batch {@code i} of the script on {@code pub} with sequence {@code i}. */
  private void publish(FakeVllmPublisher pub, long i) {
    pub.publishRaw(i, engine.payload(i, pub.dpRank()));
  }

  /**
   * ZMQ's slow joiner: publishes the script's next batches one by one until the relay has received
   * a live one from this rank. Returns the next batch index.
   */
  private long untilFlowing(FakeVllmPublisher pub, Relay relay, long next) {
    long[] i = {next};
    await()
        .pollInterval(Duration.ofMillis(50))
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              boolean flowing =
                  relay.zmqSources().stream()
                      .anyMatch(s -> s.rank() == pub.dpRank() && s.lastSeq() >= 0);
              if (flowing) {
                return true;
              }
              publish(pub, i[0]++);
              return false;
            });
    return i[0];
  }

  /** Every message of the rank's subject, in stream order. */
  private List<Stored> subject(RelayOptions o, int rank) throws Exception {
    try (NatsStreamClient c = new NatsStreamClient(o)) {
      c.connect(() -> true);
      Optional<Stored> last = c.lastMessage(o.subject(rank));
      List<Stored> out = new ArrayList<>();
      if (last.isPresent()) {
        c.read(o.subject(rank), 1, last.get().streamSeq(), out::add);
      }
      return out;
    }
  }

  private ViewSnapshot snapshot(RelayOptions o, int rank) throws Exception {
    try (NatsStreamClient c = new NatsStreamClient(o)) {
      c.connect(() -> true);
      return ViewSnapshot.decode(c.getSnapshot(o.snapshotKey(rank)).orElseThrow());
    }
  }

  private static List<Long> engineSeqs(List<Stored> msgs) {
    return msgs.stream().map(RelayMessages::engineSeq).toList();
  }

  private static List<Long> range(long n) {
    return LongStream.range(0, n).boxed().toList();
  }

  private static long markers(List<Stored> msgs) {
    return msgs.stream().filter(m -> m.headers().containsKey(NatsHeaders.RESYNC)).count();
  }

  private static List<EngineScript.Stored> asTest(List<Stored> msgs) {
    return msgs.stream()
        .map(m -> new EngineScript.Stored(m.streamSeq(), m.headers(), m.payload()))
        .toList();
  }

  /** A router seeded from the bucket and fed the subject after its watermark sees the truth. */
  private void assertRouterSeesTheTruth(RelayOptions o, long batches) throws Exception {
    SourceId src = new SourceId(W, 0);
    PrefixIndex truth = engine.truth(W, batches);
    List<Stored> msgs = subject(o, 0);
    ViewSnapshot snap = snapshot(o, 0);
    PrefixIndex seeded = EngineScript.replay(W, 0, snap, asTest(msgs), BS);
    assertThat(seeded.viewHashes(src)).containsExactly(truth.viewHashes(src));
    assertThat(seeded.snapshot(src, 0).routerHashes())
        .containsExactly(truth.snapshot(src, 0).routerHashes());
    assertThat(seeded.snapshot(src, 0).engineHashes())
        .containsExactly(truth.snapshot(src, 0).engineHashes());
  }

  // ---------------------------------------------------------------- tests

  @Test
  void forwardsEveryRankInOrderWithHeadersAndVerbatimPayloads() throws Exception {
    NatsServer nats = track(NatsServer.start(dir.resolve("nats")));
    List<FakeVllmPublisher> ranks = FakeVllmPublisher.dpGroup(2, true);
    ranks.forEach(this::track);
    // Published before the relay listens: the catch-up replay brings them.
    for (long i = 0; i < 20; i++) {
      publish(ranks.get(0), i);
      publish(ranks.get(1), i);
    }
    RelayOptions o = options(nats, ranks.get(0)).dpSize(2).build();
    Relay relay = startRelay(o);
    long[] next = {untilFlowing(ranks.get(0), relay, 20), untilFlowing(ranks.get(1), relay, 20)};
    for (int r = 0; r < 2; r++) {
      for (long i = next[r]; i < 120; i++) {
        publish(ranks.get(r), i);
      }
    }
    ranks.get(0).publishWithoutSeq(engine.events(500));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> relay.stats().acked() >= 241 && relay.stats().buffered() == 0);

    for (int r = 0; r < 2; r++) {
      List<Stored> msgs = subject(o, r);
      assertThat(o.subject(r))
          .isEqualTo("infera.kv.events.static." + EventSubjects.token(W) + "." + r);
      List<Stored> sequenced = r == 0 ? msgs.subList(0, msgs.size() - 1) : msgs;
      assertThat(engineSeqs(sequenced)).containsExactlyElementsOf(range(120));
      for (Stored m : sequenced) {
        long seq = RelayMessages.engineSeq(m);
        assertThat(m.payload()).isEqualTo(engine.payload(seq, r));
        assertThat(m.headers())
            .containsEntry(NatsHeaders.ENGINE_SEQ, Long.toString(seq))
            .containsEntry(NatsHeaders.ENGINE, "vllm")
            .containsEntry(NatsHeaders.BLOCK_SIZE, "4");
      }
      for (int i = 1; i < msgs.size(); i++) {
        assertThat(msgs.get(i).streamSeq()).isGreaterThan(msgs.get(i - 1).streamSeq());
      }
    }
    Stored unsequenced = subject(o, 0).get(120);
    assertThat(unsequenced.headers())
        .doesNotContainKey(NatsHeaders.ENGINE_SEQ)
        .containsEntry(NatsHeaders.ENGINE, "vllm");
    assertThat(RelayMessages.engineSeq(unsequenced)).isEqualTo(KvEventMessage.NO_SEQ);
    assertThat(relay.stats().replayed()).isGreaterThanOrEqualTo(40);
    assertThat(relay.stats().resyncs()).isZero();
  }

  /**
   * ATOM (docs/atom.md): its PUB binds and it has no replay socket, so the relay connects and asks
   * nothing; messages come as [topic, payload] or as the payload alone, without a sequence.
   */
  @Test
  void atomsUnsequencedOneAndTwoFrameBatchesAreForwardedVerbatim() throws Exception {
    NatsServer nats = track(NatsServer.start(dir.resolve("nats")));
    FakeVllmPublisher pub = track(FakeVllmPublisher.builder().replay(false).start());
    RelayOptions o =
        RelayOptions.builder(pub.endpoint(), nats.url(), W)
            .engine("atom")
            .blockSize(BS)
            .snapshotMinInterval(Duration.ZERO)
            .publishTimeout(Duration.ofSeconds(1))
            .drainTimeout(Duration.ofSeconds(5))
            .build();
    Relay relay = startRelay(o);
    // ZMQ's slow joiner: a root batch until one arrives (the same block each time).
    await()
        .pollInterval(Duration.ofMillis(50))
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              if (relay.stats().acked() > 0) {
                return true;
              }
              pub.publishPayloadOnly(engine.events(0));
              return false;
            });
    long warm = relay.stats().acked();
    for (long i = 8; i < 24; i++) {
      if (i % 2 == 0) {
        pub.publishPayloadOnly(engine.events(i));
      } else {
        pub.publishWithoutSeq(engine.events(i));
      }
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> relay.stats().acked() >= warm + 16 && relay.stats().buffered() == 0);
    List<Stored> msgs = subject(o, 0);
    List<Stored> last = msgs.subList(msgs.size() - 16, msgs.size());
    for (int k = 0; k < 16; k++) {
      Stored m = last.get(k);
      assertThat(m.headers())
          .doesNotContainKey(NatsHeaders.ENGINE_SEQ)
          .containsEntry(NatsHeaders.ENGINE, "atom");
      // The publisher's own encoding, byte for byte: the same blocks in the same order.
      KvEvent first = KvEventDecoder.decode(m.payload()).events().get(0);
      assertThat(((KvEvent.BlockStored) first).blockHashes()).containsExactly(1000L + 8 + k);
    }
    assertThat(relay.stats().replayed()).isZero();
    assertThat(relay.stats().resyncs()).isZero();
    relay.close();
    PrefixIndex truth = new PrefixIndex(BS);
    truth.apply(W, KvEventMessage.NO_SEQ, KvEventDecoder.decode(engine.payload(0, 0)));
    for (long i = 8; i < 24; i++) {
      truth.apply(W, KvEventMessage.NO_SEQ, KvEventDecoder.decode(engine.payload(i, 0)));
    }
    assertThat(relay.viewHashes(0)).containsExactly(truth.viewHashes(new SourceId(W, 0)));
  }

  @Test
  void snapshotsSeedARouterToTheRelaysView() throws Exception {
    NatsServer nats = track(NatsServer.start(dir.resolve("nats")));
    FakeVllmPublisher pub = track(new FakeVllmPublisher());
    RelayOptions o = options(nats, pub).snapshotEveryEvents(25).build();
    Relay relay = startRelay(o);
    long next = untilFlowing(pub, relay, 0);
    for (long i = next; i < 150; i++) {
      publish(pub, i);
      if (i % 10 == 0) {
        Thread.sleep(5); // let snapshots fall between batches
      }
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> relay.stats().acked() >= 150);
    await().atMost(Duration.ofSeconds(10)).until(() -> relay.stats().snapshotsWritten() >= 2);

    // A snapshot taken mid-stream: seeded plus the later messages gives exactly the truth.
    ViewSnapshot mid = snapshot(o, 0);
    List<Stored> msgs = subject(o, 0);
    Stored included =
        msgs.stream().filter(m -> m.streamSeq() == mid.streamSeq()).findFirst().orElseThrow();
    assertThat(RelayMessages.engineSeq(included)).isEqualTo(mid.engineSeq());
    assertRouterSeesTheTruth(o, 150);
    // And applying everything from the start gives the same.
    PrefixIndex all = EngineScript.replay(W, 0, null, asTest(msgs), BS);
    assertThat(all.viewHashes(new SourceId(W, 0)))
        .containsExactly(engine.truth(W, 150).viewHashes(new SourceId(W, 0)));

    relay.close();
    ViewSnapshot last = snapshot(o, 0);
    assertThat(last.streamSeq()).isEqualTo(msgs.get(msgs.size() - 1).streamSeq());
    assertThat(last.engineSeq()).isEqualTo(149);
  }

  @Test
  void aSequenceGapIsFilledFromTheReplaySocket() throws Exception {
    NatsServer nats = track(NatsServer.start(dir.resolve("nats")));
    FakeVllmPublisher pub = track(new FakeVllmPublisher());
    RelayOptions o = options(nats, pub).build();
    Relay relay = startRelay(o);
    long next = untilFlowing(pub, relay, 0);
    for (long i = next; i < 30; i++) {
      publish(pub, i);
    }
    // 30..34 are buffered for replay but never sent: a gap on the wire.
    for (long i = 30; i < 35; i++) {
      pub.skip(engine.events(i));
    }
    // The fake's skip() builds its own payloads; compare from 35 on by content.
    for (long i = 35; i < 50; i++) {
      publish(pub, i);
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> relay.stats().acked() >= 50);

    List<Stored> msgs = subject(o, 0);
    assertThat(engineSeqs(msgs)).containsExactlyElementsOf(range(50));
    assertThat(relay.stats().zmqMissed()).isZero();
    assertThat(relay.stats().replayed()).isGreaterThanOrEqualTo(5);
    relay.close();
    assertRouterSeesTheTruth(o, 50);
  }

  /**
   * Every way the relay replays, against a replay socket in each layout engines answer in: the
   * catch-up on what came before the relay listened, a gap fill, and the idle probe that finds the
   * engine's last batches, which no later batch reveals.
   */
  @ParameterizedTest
  @EnumSource(
      value = ReplayLayout.class,
      names = {"TOPIC", "NO_TOPIC"})
  void catchUpGapFillAndIdleProbeRecoverEveryBatchInEitherReplayLayout(ReplayLayout layout)
      throws Exception {
    NatsServer nats = track(NatsServer.start(dir.resolve("nats")));
    FakeVllmPublisher pub = track(FakeVllmPublisher.builder().replayLayout(layout).start());
    // 0..9 are published before the relay listens: the catch-up replay brings them.
    for (long i = 0; i < 10; i++) {
      publish(pub, i);
    }
    RelayOptions o = options(nats, pub).build();
    Relay relay = startRelay(o);
    long next = untilFlowing(pub, relay, 10);
    for (long i = next; i < 30; i++) {
      publish(pub, i);
    }
    // 30..34 never reach the SUB socket: the next batch reveals the gap.
    for (long i = 30; i < 35; i++) {
      pub.skip(engine.events(i));
    }
    for (long i = 35; i < 40; i++) {
      publish(pub, i);
    }
    // 40..42 never reach it either, and nothing follows: only the idle probe finds them.
    for (long i = 40; i < 43; i++) {
      pub.skip(engine.events(i));
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> relay.stats().acked() >= 43);

    List<Stored> msgs = subject(o, 0);
    assertThat(engineSeqs(msgs)).containsExactlyElementsOf(range(43));
    RelayStats s = relay.stats();
    assertThat(s.replayed()).isGreaterThanOrEqualTo(10 + 5 + 3);
    assertThat(s.zmqMissed()).isZero();
    assertThat(s.zmqReplayMalformed()).isZero();
    assertThat(s.zmqReplayTimeouts()).isZero();
    assertThat(s.malformed()).isZero();
    assertThat(RelayHttp.prometheus(relay))
        .contains("infera_relay_zmq_replay_malformed_total 0.0")
        .contains("infera_relay_zmq_replay_timeouts_total 0.0");
    relay.close();
    assertRouterSeesTheTruth(o, 43);
  }

  @Test
  void aReplaySocketSpeakingAnUnknownLayoutIsCountedAndDoesNotHoldTheRelayUp() throws Exception {
    NatsServer nats = track(NatsServer.start(dir.resolve("nats")));
    FakeVllmPublisher pub =
        track(FakeVllmPublisher.builder().replayLayout(ReplayLayout.GARBAGE).start());
    for (long i = 0; i < 5; i++) {
      publish(pub, i);
    }
    RelayOptions o = options(nats, pub).build();
    Relay relay = startRelay(o);
    long next = untilFlowing(pub, relay, 5);
    long last = next + 15;
    for (long i = next; i <= last; i++) {
      publish(pub, i);
    }
    // Live batches keep flowing, at once, although no replay ever completes.
    await().atMost(Duration.ofSeconds(5)).until(() -> relay.stats().acked() >= 16);
    RelayStats s = relay.stats();
    assertThat(s.zmqReplayMalformed()).isPositive();
    assertThat(s.zmqReplayTimeouts()).isZero();
    assertThat(s.replayed()).isZero();
    // What the catch-up could not bring never reaches the stream.
    assertThat(engineSeqs(subject(o, 0))).endsWith(last).doesNotContain(0L);
    assertThat(RelayHttp.prometheus(relay)).contains("infera_relay_zmq_replay_malformed_total");
  }

  @Test
  void natsKilledAndRestartedWhileTheEnginePublishesLosesAndDuplicatesNothing() throws Exception {
    NatsServer nats = track(NatsServer.start(dir.resolve("nats")));
    FakeVllmPublisher pub = track(new FakeVllmPublisher());
    RelayOptions o = options(nats, pub).snapshotEveryEvents(200).build();
    Relay relay = startRelay(o);
    long next = untilFlowing(pub, relay, 0);
    int total = 1500;
    Thread engineThread =
        new Thread(
            () -> {
              for (long i = next; i < total; i++) {
                publish(pub, i);
                sleepMillis(2);
              }
            },
            "engine");
    engineThread.start();
    Thread.sleep(800);
    nats.kill();
    Thread.sleep(1500);
    nats.restart();
    engineThread.join();
    await().atMost(Duration.ofSeconds(30)).until(() -> relay.stats().acked() >= total);

    List<Stored> msgs = subject(o, 0);
    assertThat(markers(msgs)).isZero();
    assertThat(engineSeqs(msgs)).containsExactlyElementsOf(range(total));
    RelayStats s = relay.stats();
    assertThat(s.natsReconnects()).isGreaterThanOrEqualTo(1);
    assertThat(s.folded()).isZero();
    relay.close();
    assertRouterSeesTheTruth(o, total);
  }

  @Test
  void natsKilledDuringABurstWithAFullWindowLosesAndDuplicatesNothing() throws Exception {
    NatsServer nats = track(NatsServer.start(dir.resolve("nats")));
    FakeVllmPublisher pub = track(new FakeVllmPublisher());
    RelayOptions o = options(nats, pub).build();
    Relay relay = startRelay(o);
    long next = untilFlowing(pub, relay, 0);
    int total = 6000;
    Thread engineThread =
        new Thread(
            () -> {
              for (long i = next; i < total; i++) {
                publish(pub, i);
                if (i % 20 == 0) {
                  sleepMillis(1);
                }
              }
            },
            "engine");
    engineThread.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> relay.stats().acked() >= 1000);
    nats.kill();
    Thread.sleep(700);
    nats.restart();
    engineThread.join();
    await().atMost(Duration.ofSeconds(30)).until(() -> relay.stats().acked() >= total);
    relay.close();

    // Publishes were in flight when the server died: what it had stored is a prefix of them (one
    // connection, in order), and the relay republished the rest in order on a fresh connection.
    List<Stored> msgs = subject(o, 0);
    assertThat(markers(msgs)).isZero();
    assertThat(engineSeqs(msgs)).containsExactlyElementsOf(range(total));
    RelayStats s = relay.stats();
    assertThat(s.folded()).isZero();
    assertThat(s.orderViolations()).isZero();
    assertThat(s.natsReconnects()).isGreaterThanOrEqualTo(1);
    assertRouterSeesTheTruth(o, total);
  }

  @Test
  void relayRestartWhileTheEnginePublishesFillsTheGapFromReplay() throws Exception {
    NatsServer nats = track(NatsServer.start(dir.resolve("nats")));
    FakeVllmPublisher pub = track(new FakeVllmPublisher());
    RelayOptions o = options(nats, pub).snapshotEveryEvents(50).build();
    Relay first = startRelay(o);
    long next = untilFlowing(pub, first, 0);
    int total = 800;
    AtomicBoolean done = new AtomicBoolean();
    Thread engineThread =
        new Thread(
            () -> {
              for (long i = next; i < total; i++) {
                publish(pub, i);
                sleepMillis(2);
              }
              done.set(true);
            },
            "engine");
    engineThread.start();
    Thread.sleep(500);
    first.close();
    Thread.sleep(300);
    assertThat(done).isFalse();
    Relay second = startRelay(o);
    engineThread.join();
    // The last batches may have gone out before the second relay's subscription was live: one
    // more batch reveals the gap, which the replay fills.
    await()
        .pollInterval(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> {
              if (subject(o, 0).size() >= total + 1) {
                return true;
              }
              if (pub.nextSeq() == total) {
                publish(pub, total);
              }
              return false;
            });

    List<Stored> msgs = subject(o, 0);
    assertThat(markers(msgs)).isZero();
    assertThat(engineSeqs(msgs)).containsExactlyElementsOf(range(total + 1));
    assertThat(second.stats().resumeSkipped()).isGreaterThan(0);
    assertThat(second.stats().duplicateAcks()).isZero();
    second.close();
    assertRouterSeesTheTruth(o, total + 1);
  }

  @Test
  void overflowWhileNatsIsAwayFoldsAndResyncs() throws Exception {
    NatsServer nats = track(NatsServer.start(dir.resolve("nats")));
    FakeVllmPublisher pub = track(new FakeVllmPublisher());
    RelayOptions o = options(nats, pub).bufferBatches(50).build();
    Relay relay = startRelay(o);
    long next = untilFlowing(pub, relay, 0);
    for (long i = next; i < 20; i++) {
      publish(pub, i);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> relay.stats().acked() >= 20);
    nats.kill();
    for (long i = 20; i < 200; i++) {
      publish(pub, i);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> relay.stats().overflows() >= 1);
    nats.restart();
    await().atMost(Duration.ofSeconds(30)).until(() -> relay.stats().resyncs() >= 1);
    // What a router reads from the bucket when it meets the marker.
    ViewSnapshot atMarker = snapshot(o, 0);
    for (long i = 200; i < 220; i++) {
      publish(pub, i);
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> relay.stats().acked() >= 40);

    List<Stored> msgs = subject(o, 0);
    assertThat(markers(msgs)).isEqualTo(1);
    Stored marker =
        msgs.stream()
            .filter(m -> m.headers().containsKey(NatsHeaders.RESYNC))
            .findFirst()
            .orElseThrow();
    assertThat(marker.headers()).containsEntry(NatsHeaders.RESYNC, RelayProtocol.REASON_OVERFLOW);
    assertThat(relay.stats().folded()).isGreaterThanOrEqualTo(50);
    assertThat(atMarker.streamSeq()).isLessThan(marker.streamSeq());
    assertRouterSeesTheTruth(o, 220);
    relay.close();
    assertRouterSeesTheTruth(o, 220);
  }

  @Test
  void aStreamDeletedAndRecreatedMidRunResetsTheWatermarkOnceAndTheRouterEndsExact()
      throws Exception {
    NatsServer nats = track(NatsServer.start(dir.resolve("nats")));
    FakeVllmPublisher pub = track(new FakeVllmPublisher());
    RelayOptions o = options(nats, pub).build();
    Relay relay = startRelay(o);
    // A real router following the stream the whole time.
    PrefixIndex index = new PrefixIndex(BS);
    EventIngest ingest = track(new EventIngest(index, 10_000).start());
    NatsTransport router =
        track(
            new NatsTransport(
                new RouterConfig.Nats(
                    nats.url(), o.stream(), o.subjectPrefix(), o.snapshotBucket(), false),
                BS,
                NatsTransportIT.settings()));
    router.start(ingest);
    ingest.workers(Set.of(W), Set.of());
    router.workersChanged(
        List.of(
            new WorkerInfo(
                W,
                "http://127.0.0.1:1",
                Role.MIXED,
                "vllm",
                1,
                null,
                null,
                WorkerInfo.Readiness.READY,
                io.infera.router.nats.EventSubjects.DEFAULT_POOL)));
    SourceId src = new SourceId(W, 0);
    long next = untilFlowing(pub, relay, 0);
    for (long i = next; i < 50; i++) {
      publish(pub, i);
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> relay.stats().acked() >= 50);
    await().atMost(Duration.ofSeconds(20)).until(router::warm);

    // The stream goes away under both, batches keep coming, then it is back (empty, from 1).
    try (Connection nc = Nats.connect(nats.url())) {
      nc.jetStreamManagement().deleteStream(o.stream());
      for (long i = 50; i < 60; i++) {
        publish(pub, i);
      }
      sleepMillis(500);
      JetStreamSetup.ensureStream(nc, o.stream(), o.subjectPrefix(), o.streamLimits());
    }
    for (long i = 60; i < 100; i++) {
      publish(pub, i);
      if (i % 10 == 0) {
        sleepMillis(20);
      }
    }
    long[] truth = engine.truth(W, 100).viewHashes(src);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                relay.stats().resyncs() >= 1
                    && relay.stats().buffered() == 0
                    && relay.stats().inFlight() == 0
                    && java.util.Arrays.equals(
                        ingest.onWriter(i -> i.viewHashes(src)).get(10, TimeUnit.SECONDS), truth));
    // Steady afterwards: no further resyncs as batches keep coming.
    for (long i = 100; i < 120; i++) {
      publish(pub, i);
    }
    long[] truth120 = engine.truth(W, 120).viewHashes(src);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                java.util.Arrays.equals(
                    ingest.onWriter(i -> i.viewHashes(src)).get(10, TimeUnit.SECONDS), truth120));
    RelayStats st = relay.stats();
    System.out.printf(
        "relay stream recreated: stream_resets=%d resyncs=%d order_violations=%d folded=%d"
            + " publish_failures=%d router_resyncs=%d router_snapshots_seeded=%d%n",
        st.streamResets(),
        st.resyncs(),
        st.orderViolations(),
        st.folded(),
        st.publishFailures(),
        router.counters().resyncs(),
        router.counters().snapshotsSeeded());
    assertThat(st.streamResets()).isEqualTo(1);
    assertThat(st.resyncs()).isEqualTo(1);
    List<Stored> msgs = subject(o, 0);
    assertThat(markers(msgs)).isEqualTo(1);
    assertThat(msgs.stream().filter(m -> m.headers().containsKey(NatsHeaders.RESYNC)).findFirst())
        .hasValueSatisfying(
            m ->
                assertThat(m.headers())
                    .containsEntry(NatsHeaders.RESYNC, RelayProtocol.REASON_STREAM_RESET));
    assertThat(router.sources()).allSatisfy(s -> assertThat(s.degraded()).isFalse());
    assertRouterSeesTheTruth(o, 120);
  }

  private static void sleepMillis(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
