package io.infera.router.events.zmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.discovery.WorkerInfo.Readiness;
import io.infera.router.events.Delivery;
import io.infera.router.events.EventSink;
import io.infera.router.events.FakeVllmPublisher;
import io.infera.router.events.FakeVllmPublisher.ReplayLayout;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.EventDecodeException;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEvent.BlockStored;
import io.infera.router.kv.KvEventDecoder;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.WorkerId;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/** The {@code zmq} transport against fake vLLM publishers on loopback sockets. */
@Timeout(20)
class ZmqTransportIT {

  private static final WorkerId W0 = WorkerId.of("w0");
  private static final WorkerId W1 = WorkerId.of("w1");

  private final List<AutoCloseable> resources = new ArrayList<>();
  private final RecordingSink sink = new RecordingSink();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
  }

  @Test
  void deliversMessagesOfOneWorkerInOrder() throws Exception {
    FakeVllmPublisher pub = track(new FakeVllmPublisher());
    ZmqTransport transport = start(ZmqSettings.defaults());
    transport.workersChanged(List.of(worker(W0, pub, 1)));
    awaitSubscribed(pub, W0);

    long mark = pub.nextSeq();
    List<long[]> hashes = new ArrayList<>();
    Long parent = null;
    for (int i = 0; i < 50; i++) {
      long[] h = {1000L + 2 * i, 1001L + 2 * i};
      hashes.add(h);
      pub.publishStored(h, parent, range(32 * i, 32));
      parent = h[1];
    }
    long last = pub.nextSeq() - 1;
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.hasLive(W0, last));

    List<Got> got = sink.from(W0, mark);
    assertThat(got).extracting(Got::seq).containsExactlyElementsOf(seqs(mark, last + 1));
    assertThat(got).noneMatch(Got::replayed);
    for (int i = 0; i < got.size(); i++) {
      Got d = got.get(i);
      assertThat(d.frames()).hasSize(3);
      assertThat(d.topic()).isEqualTo(FakeVllmPublisher.DEFAULT_TOPIC);
      EventBatch batch = d.batch();
      assertThat(batch.dpRank()).isZero();
      assertThat(batch.events()).singleElement().isInstanceOf(BlockStored.class);
      BlockStored stored = (BlockStored) batch.events().get(0);
      assertThat(stored.blockHashes()).containsExactly(hashes.get(i));
      assertThat(stored.tokenIds()).hasSize(32);
      assertThat(stored.medium()).isEqualTo(KvEvent.MEDIUM_GPU);
    }
    assertThat(transport.counters().messagesReceived()).isGreaterThanOrEqualTo(50);
    assertThat(transport.counters().missedMessages()).isZero();
  }

  /**
   * The relay's {@code --zmq-mode bind}: an engine given a loopback endpoint connects its PUB (as
   * vLLM and SGLang do for anything but a wildcard), the SUB binds; its replay ROUTER still binds
   * and the transport still connects to it.
   */
  @Test
  void aBoundSubReceivesFromAConnectingPublisherAndReplaysFromItsBoundRouter() throws Exception {
    int port = FakeVllmPublisher.freePort();
    FakeVllmPublisher pub =
        track(FakeVllmPublisher.builder().connect(true).port(port).replay(true).start());
    for (int i = 0; i < 3; i++) {
      pub.publishStored(new long[] {500L + i}, null, range(16 * i, 16)); // nobody bound yet
    }
    ZmqTransport transport = start(ZmqSettings.defaults().withBindSub(true));
    transport.workersChanged(
        List.of(worker(W0, "tcp://127.0.0.1:" + port, pub.replayEndpoint(), 1)));
    awaitSubscribed(pub, W0);
    assertThat(pub.connectedSubscribers()).isEqualTo(1);

    long mark = pub.nextSeq();
    for (int i = 0; i < 20; i++) {
      pub.publishStored(new long[] {900L + i}, null, range(16 * i, 16));
    }
    long last = pub.nextSeq() - 1;
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.hasLive(W0, last));
    assertThat(sink.from(W0, mark))
        .extracting(Got::seq)
        .containsExactlyElementsOf(seqs(mark, last + 1));
    // The three batches published before the SUB was bound came from the replay socket.
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.from(W0, 0).size() >= last + 1);
    assertThat(sink.from(W0, 0).subList(0, 3)).allMatch(Got::replayed);
    assertThat(transport.counters().connectFailures()).isZero();
  }

  /** Without bind mode, nobody binds: a connecting engine and a connecting SUB never meet. */
  @Test
  void aConnectingSubAndAConnectingPublisherNeverMeet() throws Exception {
    int port = FakeVllmPublisher.freePort();
    FakeVllmPublisher pub = track(FakeVllmPublisher.builder().connect(true).port(port).start());
    ZmqTransport transport = start(ZmqSettings.defaults());
    transport.workersChanged(List.of(worker(W0, "tcp://127.0.0.1:" + port, null, 1)));
    for (int i = 0; i < 10; i++) {
      pub.publish();
      Thread.sleep(50);
    }
    assertThat(sink.from(W0, 0)).isEmpty();
    assertThat(pub.connectedSubscribers()).isZero();
  }

  @ParameterizedTest
  @EnumSource(
      value = ReplayLayout.class,
      names = {"TOPIC", "NO_TOPIC"})
  void catchesUpOnBatchesPublishedBeforeTheSubscription(ReplayLayout layout) throws Exception {
    FakeVllmPublisher pub = track(FakeVllmPublisher.builder().replayLayout(layout).start());
    for (int i = 0; i < 5; i++) {
      pub.publishStored(new long[] {i}, null, range(16 * i, 16)); // nobody listens yet
    }
    ZmqTransport transport = start(ZmqSettings.defaults());
    transport.workersChanged(List.of(worker(W0, pub, 1)));
    awaitSubscribed(pub, W0);
    long last = pub.nextSeq() - 1;
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.hasLive(W0, last));

    List<Got> got = sink.from(W0, 0);
    // The first live message revealed seqs 0..k-1 as missing: they were replayed before it.
    assertThat(got).extracting(Got::seq).containsExactlyElementsOf(seqs(0, last + 1));
    assertThat(got.subList(0, 5)).allMatch(Got::replayed);
    assertThat(got.subList(0, 5))
        .allSatisfy(d -> assertThat(d.topic()).isEqualTo(FakeVllmPublisher.DEFAULT_TOPIC));
    assertThat(stored(got.get(3)).blockHashes()).containsExactly(3L);
    assertThat(transport.counters().replaysRequested()).isEqualTo(1);
    assertThat(transport.counters().missedMessages()).isZero();
    assertThat(transport.counters().replayMalformed()).isZero();
    assertThat(transport.counters().replayTimeouts()).isZero();
  }

  @ParameterizedTest
  @EnumSource(
      value = ReplayLayout.class,
      names = {"TOPIC", "NO_TOPIC"})
  void aSilentSourceIsProbedForWhatItsSubscriptionMissed(ReplayLayout layout) throws Exception {
    FakeVllmPublisher pub = track(FakeVllmPublisher.builder().replayLayout(layout).start());
    ZmqTransport transport = start(ZmqSettings.defaults());
    transport.workersChanged(List.of(worker(W0, pub, 1)));
    awaitSubscribed(pub, W0);
    long last = pub.nextSeq() - 1;
    // The engine's last batches never reach the SUB socket (dropped, or sent before it joined)
    // and nothing follows them: only the idle probe can find them.
    long s1 = pub.skip(pub.stored(new long[] {7}, null, range(0, 16)));
    long s2 = pub.skip(pub.stored(new long[] {8}, 7L, range(16, 16)));
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.hasReplayed(W0, s2));
    assertThat(sink.from(W0, last + 1)).extracting(Got::seq).containsExactly(s1, s2);
    assertThat(transport.counters().idleProbes()).isPositive();
    assertThat(transport.counters().missedMessages()).isZero();

    // The next live batch follows on, and nothing the probe delivered is delivered twice.
    long b = pub.publishStored(new long[] {9}, 8L, range(32, 16));
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.hasLive(W0, b));
    assertThat(sink.from(W0, last + 1)).extracting(Got::seq).containsExactly(s1, s2, b);
    assertThat(transport.counters().engineRestarts()).isZero();
    assertThat(transport.counters().replayMalformed()).isZero();
  }

  @Test
  void deliversEveryDataParallelRankUnderTheWorkerId() throws Exception {
    List<FakeVllmPublisher> ranks = FakeVllmPublisher.dpGroup(2, true);
    ranks.forEach(this::track);
    assertThat(ranks.get(1).port()).isEqualTo(ranks.get(0).port() + 1);
    ZmqTransport transport = start(ZmqSettings.defaults());
    transport.workersChanged(List.of(worker(W0, ranks.get(0), 2)));
    awaitSubscribed(ranks.get(0), W0);
    awaitSubscribed(ranks.get(1), W0);

    long seq0 = ranks.get(0).publishStored(new long[] {10}, null, range(0, 16));
    long seq1 = ranks.get(1).publishStored(new long[] {11}, null, range(100, 16));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> sink.hasLive(W0, 0, seq0) && sink.hasLive(W0, 1, seq1));

    assertThat(stored(sink.live(W0, 0, seq0)).blockHashes()).containsExactly(10L);
    assertThat(stored(sink.live(W0, 1, seq1)).blockHashes()).containsExactly(11L);
    // Each delivery names the socket it came from, the source the index applies it to.
    assertThat(sink.live(W0, 0, seq0).socketRank()).isZero();
    assertThat(sink.live(W0, 1, seq1).socketRank()).isEqualTo(1);
    assertThat(sink.all()).extracting(Got::worker).containsOnly(W0);
    assertThat(transport.sources())
        .extracting(ZmqSourceStatus::rank, ZmqSourceStatus::endpoint)
        .containsExactlyInAnyOrder(
            tuple(0, ranks.get(0).endpoint()), tuple(1, ranks.get(1).endpoint()));
  }

  @ParameterizedTest
  @EnumSource(
      value = ReplayLayout.class,
      names = {"TOPIC", "NO_TOPIC"})
  void gapIsFilledFromTheReplaySocketBeforeTheNextBatch(ReplayLayout layout) throws Exception {
    FakeVllmPublisher pub = track(FakeVllmPublisher.builder().replayLayout(layout).start());
    ZmqTransport transport = start(ZmqSettings.defaults());
    transport.workersChanged(List.of(worker(W0, pub, 1)));
    awaitSubscribed(pub, W0);
    long replaysBefore = transport.counters().replaysRequested();
    // A slow join can itself leave a gap among the subscription probes: count from here.
    long gapsBefore = transport.counters().sequenceGaps();

    long a = pub.publishStored(new long[] {1}, null, range(0, 16));
    long s1 = pub.skip(pub.stored(new long[] {2}, 1L, range(16, 16)));
    long s2 = pub.skip(pub.stored(new long[] {3}, 2L, range(32, 16)));
    long s3 = pub.skipSeq();
    long b = pub.publishStored(new long[] {4}, 3L, range(48, 16));
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.hasLive(W0, b));

    List<Got> got = sink.from(W0, a);
    assertThat(got).extracting(Got::seq).containsExactly(a, s1, s2, s3, b);
    assertThat(got).extracting(Got::replayed).containsExactly(false, true, true, true, false);
    assertThat(stored(got.get(1)).blockHashes()).containsExactly(2L);
    assertThat(stored(got.get(2)).blockHashes()).containsExactly(3L);
    assertThat(got.get(3).batch().events()).isEmpty();
    assertThat(got.get(1).frames()).hasSize(3);
    assertThat(got.get(1).topic()).isEqualTo(FakeVllmPublisher.DEFAULT_TOPIC);
    assertThat(transport.counters().replaysRequested() - replaysBefore).isEqualTo(1);
    assertThat(transport.counters().replayMessages()).isGreaterThanOrEqualTo(3);
    assertThat(transport.counters().sequenceGaps() - gapsBefore).isEqualTo(1);
    assertThat(transport.counters().missedMessages()).isZero();
    assertThat(transport.counters().replayMalformed()).isZero();
    assertThat(transport.counters().replayTimeouts()).isZero();
    assertThat(pub.replayRequests()).isGreaterThanOrEqualTo(1);
  }

  @Test
  void aReplaySocketSpeakingAnUnknownLayoutCostsOneMessageNotTheTimeout() throws Exception {
    FakeVllmPublisher pub =
        track(FakeVllmPublisher.builder().replayLayout(ReplayLayout.GARBAGE).start());
    // A timeout far above the test's patience: only abandoning at the first answer passes.
    ZmqTransport transport = start(withReplayTimeout(Duration.ofSeconds(30)));
    transport.workersChanged(List.of(worker(W0, pub, 1)));
    awaitSubscribed(pub, W0);

    long a = pub.publishStored(new long[] {1}, null, range(0, 16));
    pub.skipSeq();
    pub.skipSeq();
    long t0 = System.nanoTime();
    long b = pub.publishStored(new long[] {4}, 3L, range(48, 16));
    await().atMost(Duration.ofSeconds(3)).until(() -> sink.hasLive(W0, b));
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));

    assertThat(sink.from(W0, a)).extracting(Got::seq).containsExactly(a, b);
    assertThat(sink.all()).noneMatch(Got::replayed);
    // Abandoned at the gap's replay, or already at the first-contact catch-up (then backing off).
    assertThat(transport.counters().replayMalformed()).isPositive();
    assertThat(transport.counters().replayTimeouts()).isZero();
    assertThat(transport.counters().missedMessages()).isGreaterThanOrEqualTo(2);
    // The source's replays back off: the next gaps are not asked for again at once.
    long requests = pub.replayRequests();
    pub.skipSeq();
    long c = pub.publishStored(new long[] {6}, 4L, range(64, 16));
    await().atMost(Duration.ofSeconds(3)).until(() -> sink.hasLive(W0, c));
    assertThat(pub.replayRequests()).isEqualTo(requests);
    assertThat(transport.pollerThread().isAlive()).isTrue();
  }

  @Test
  void malformedAnswersAreCountedEveryTimeAndLoggedOncePerSource() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger(ZmqTransport.class);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    resources.add(() -> logger.detachAppender(logs));
    FakeVllmPublisher pub =
        track(FakeVllmPublisher.builder().replayLayout(ReplayLayout.GARBAGE).start());
    // No back-off: every gap asks the replay socket again.
    ZmqTransport transport = start(withReplay(Duration.ofSeconds(30), Duration.ZERO));
    transport.workersChanged(List.of(worker(W0, pub, 1)));
    awaitSubscribed(pub, W0);

    long last = 0;
    for (int i = 0; i < 4; i++) {
      pub.skipSeq();
      last = pub.publishStored(new long[] {i}, null, range(16 * i, 16));
      long b = last;
      await().atMost(Duration.ofSeconds(3)).until(() -> sink.hasLive(W0, b));
    }
    assertThat(transport.counters().replayMalformed()).isGreaterThanOrEqualTo(4);
    assertThat(transport.counters().replayTimeouts()).isZero();
    long warnings =
        logs.list.stream()
            .filter(e -> e.getLevel() == Level.WARN)
            .filter(e -> e.getFormattedMessage().startsWith("zmq replay answer malformed"))
            .count();
    assertThat(warnings).isEqualTo(1);
  }

  @Test
  void withoutAReplaySocketAGapIsSkipped() throws Exception {
    FakeVllmPublisher pub = track(FakeVllmPublisher.builder().replay(false).start());
    ZmqTransport transport = start(ZmqSettings.defaults());
    transport.workersChanged(List.of(worker(W0, pub, 1)));
    awaitSubscribed(pub, W0);
    awaitProbesSettled(pub, W0);
    long gaps = transport.counters().sequenceGaps();
    long missed = transport.counters().missedMessages();

    long a = pub.publishStored(new long[] {1}, null, range(0, 16));
    pub.skipSeq();
    pub.skipSeq();
    long b = pub.publishStored(new long[] {4}, 3L, range(48, 16));
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.hasLive(W0, b));

    assertThat(sink.from(W0, a)).extracting(Got::seq).containsExactly(a, b);
    assertThat(sink.all()).noneMatch(Got::replayed);
    assertThat(transport.counters().replaysRequested()).isZero();
    assertThat(transport.counters().sequenceGaps()).isEqualTo(gaps + 1);
    assertThat(transport.counters().missedMessages()).isEqualTo(missed + 2);
  }

  @Test
  void deadReplaySocketDoesNotStallDelivery() throws Exception {
    FakeVllmPublisher pub = track(FakeVllmPublisher.builder().replay(false).start());
    ZmqSettings settings = withReplayTimeout(Duration.ofMillis(300));
    ZmqTransport transport = start(settings);
    String deadReplay = "tcp://127.0.0.1:" + FakeVllmPublisher.freePort();
    transport.workersChanged(List.of(worker(W0, pub.endpoint(), deadReplay, 1)));
    awaitSubscribed(pub, W0);

    long a = pub.publishStored(new long[] {1}, null, range(0, 16));
    pub.skipSeq();
    long b = pub.publishStored(new long[] {3}, null, range(32, 16));
    await().atMost(Duration.ofSeconds(3)).until(() -> sink.hasLive(W0, b));

    assertThat(sink.from(W0, a)).extracting(Got::seq).containsExactly(a, b);
    // Either the first-contact catch-up or the gap's replay timed out (then replays back off).
    assertThat(transport.counters().replayTimeouts()).isGreaterThanOrEqualTo(1);
    assertThat(transport.counters().missedMessages()).isGreaterThanOrEqualTo(1);
    assertThat(transport.pollerThread().isAlive()).isTrue();
  }

  @Test
  void removedWorkerStopsDeliveringAndItsSocketIsClosed() throws Exception {
    FakeVllmPublisher pub0 = track(new FakeVllmPublisher());
    FakeVllmPublisher pub1 = track(new FakeVllmPublisher());
    ZmqTransport transport = start(ZmqSettings.defaults());
    transport.workersChanged(List.of(worker(W0, pub0, 1), worker(W1, pub1, 1)));
    awaitSubscribed(pub0, W0);
    awaitSubscribed(pub1, W1);
    await().atMost(Duration.ofSeconds(3)).until(() -> pub0.connectedSubscribers() == 1);

    transport.workersChanged(List.of(worker(W1, pub1, 1)));
    await().atMost(Duration.ofSeconds(3)).until(() -> pub0.connectedSubscribers() == 0);
    assertThat(transport.sources()).extracting(ZmqSourceStatus::worker).containsExactly(W1);

    long mark0 = pub0.nextSeq();
    for (int i = 0; i < 5; i++) {
      pub0.publishStored(new long[] {i}, null, range(0, 16));
    }
    long seq1 = pub1.publishStored(new long[] {99}, null, range(0, 16));
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.hasLive(W1, seq1));
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(() -> sink.from(W0, mark0).isEmpty());
    assertThat(pub1.connectedSubscribers()).isPositive();
  }

  @Test
  void publisherStartedAfterTheSubscriptionIsReceived() throws Exception {
    int port = FakeVllmPublisher.freePort();
    ZmqTransport transport = start(ZmqSettings.defaults());
    transport.workersChanged(List.of(worker(W0, "tcp://127.0.0.1:" + port, null, 1)));
    // Let ZMQ fail a few connection attempts first.
    await()
        .pollDelay(Duration.ofMillis(400))
        .atMost(Duration.ofSeconds(2))
        .until(() -> transport.sources().size() == 1);
    assertThat(transport.sources().get(0).messages()).isZero();

    FakeVllmPublisher pub = track(FakeVllmPublisher.builder().port(port).replay(false).start());
    awaitSubscribed(pub, W0);
    long seq = pub.publishStored(new long[] {7}, null, range(0, 16));
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.hasLive(W0, seq));
    assertThat(stored(sink.live(W0, 0, seq)).blockHashes()).containsExactly(7L);
  }

  @Test
  void restartedPublisherKeepsBeingDelivered() throws Exception {
    FakeVllmPublisher pub = track(new FakeVllmPublisher());
    ZmqTransport transport = start(ZmqSettings.defaults());
    transport.workersChanged(List.of(worker(W0, pub, 1)));
    awaitSubscribed(pub, W0);
    for (int i = 0; i < 20; i++) {
      pub.publishStored(new long[] {i}, null, range(0, 16));
    }
    long lastBefore = pub.nextSeq() - 1;
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.hasLive(W0, lastBefore));
    int before = sink.all().size();

    pub.restart();
    assertThat(pub.nextSeq()).isZero();
    awaitSubscribed(pub, W0);
    long s = pub.publishStored(new long[] {500}, null, range(0, 16));
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.hasLive(W0, s));

    List<Got> afterRestart = sink.all().subList(before, sink.all().size());
    // Probes lost while reconnecting are replayed from the new engine's buffer, so the new
    // incarnation is delivered completely, from seq 0.
    assertThat(afterRestart).extracting(Got::seq).containsExactlyElementsOf(seqs(0, s + 1));
    assertThat(stored(afterRestart.get(afterRestart.size() - 1)).blockHashes())
        .containsExactly(500L);
    assertThat(transport.counters().engineRestarts()).isEqualTo(1);
  }

  @Test
  void anEngineRestartWhoseBatchesAllMissedTheSubscriptionIsFoundByTheIdleProbe() throws Exception {
    FakeVllmPublisher pub = track(new FakeVllmPublisher());
    ZmqTransport transport = start(ZmqSettings.defaults());
    transport.workersChanged(List.of(worker(W0, pub, 1)));
    awaitSubscribed(pub, W0);
    for (int i = 0; i < 20; i++) {
      pub.publishStored(new long[] {i}, null, range(0, 16));
    }
    long lastBefore = pub.nextSeq() - 1;
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.hasLive(W0, lastBefore));
    int before = sink.all().size();

    // The engine restarts and its first batches never reach the SUB socket; nothing follows.
    pub.restart();
    long s0 = pub.skip(pub.stored(new long[] {500}, null, range(0, 16)));
    long s1 = pub.skip(pub.stored(new long[] {501}, 500L, range(16, 16)));
    assertThat(s0).isZero();
    // Only what arrives after the restart counts: the start-up catch-up may already have
    // replayed a batch with the same sequence number (s1 = 1) before it.
    await()
        .atMost(Duration.ofSeconds(8))
        .until(
            () -> {
              List<Got> all = sink.all();
              return all.subList(before, all.size()).stream()
                  .anyMatch(d -> d.worker().equals(W0) && d.replayed() && d.seq() == s1);
            });
    List<Got> all = sink.all();
    List<Got> afterRestart = all.subList(before, all.size());
    assertThat(afterRestart).extracting(Got::seq).containsExactly(s0, s1);
    assertThat(transport.counters().engineRestarts()).isEqualTo(1);

    // The new incarnation's next live batch follows on.
    awaitSubscribed(pub, W0);
    assertThat(transport.counters().engineRestarts()).isEqualTo(1);
    assertThat(transport.counters().missedMessages()).isZero();
  }

  @Test
  void twoFrameMessagesAreDeliveredWithoutGapDetection() throws Exception {
    FakeVllmPublisher pub = track(new FakeVllmPublisher());
    ZmqTransport transport = start(ZmqSettings.defaults());
    transport.workersChanged(List.of(worker(W0, pub, 1)));
    awaitSubscribed(pub, W0);
    awaitProbesSettled(pub, W0);
    long replays = transport.counters().replaysRequested();
    long gaps = transport.counters().sequenceGaps();

    pub.publishWithoutSeq(pub.stored(new long[] {42}, null, range(0, 16)));
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.any(d -> d.frames().size() == 2));

    Got legacy = sink.all().stream().filter(d -> d.frames().size() == 2).findFirst().get();
    assertThat(legacy.topic()).isEqualTo(FakeVllmPublisher.DEFAULT_TOPIC);
    assertThat(stored(legacy).blockHashes()).containsExactly(42L);
    assertThat(transport.counters().replaysRequested()).isEqualTo(replays);
    assertThat(transport.counters().sequenceGaps()).isEqualTo(gaps);
  }

  /** ATOM without a topic (docs/atom.md): one frame, no sequence, delivered as it came. */
  @Test
  void oneFrameMessagesAreDeliveredWithoutGapDetection() throws Exception {
    FakeVllmPublisher pub = track(new FakeVllmPublisher());
    ZmqTransport transport = start(ZmqSettings.defaults());
    transport.workersChanged(List.of(worker(W0, pub, 1)));
    awaitSubscribed(pub, W0);
    awaitProbesSettled(pub, W0);
    long replays = transport.counters().replaysRequested();
    long gaps = transport.counters().sequenceGaps();

    pub.publishPayloadOnly(pub.stored(new long[] {43}, null, range(0, 16)));
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.any(d -> d.frames().size() == 1));

    Got atom = sink.all().stream().filter(d -> d.frames().size() == 1).findFirst().get();
    KvEventMessage m = KvEventMessage.fromFrames(atom.frames());
    assertThat(m.hasSeq()).isFalse();
    BlockStored s = (BlockStored) KvEventDecoder.decode(m.payload()).events().get(0);
    assertThat(s.blockHashes()).containsExactly(43L);
    assertThat(transport.counters().replaysRequested()).isEqualTo(replays);
    assertThat(transport.counters().sequenceGaps()).isEqualTo(gaps);
  }

  @Test
  void sinkFailureDoesNotKillThePoller() throws Exception {
    FakeVllmPublisher pub = track(new FakeVllmPublisher());
    ZmqTransport transport = start(ZmqSettings.defaults());
    transport.workersChanged(List.of(worker(W0, pub, 1)));
    awaitSubscribed(pub, W0);

    sink.failNext.set(1);
    long a = pub.publishStored(new long[] {1}, null, range(0, 16));
    long b = pub.publishStored(new long[] {2}, 1L, range(16, 16));
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.hasLive(W0, b));

    assertThat(sink.from(W0, a)).extracting(Got::seq).containsExactly(b);
    assertThat(transport.counters().errors()).isEqualTo(1);
    assertThat(transport.pollerThread().isAlive()).isTrue();
  }

  @Test
  void warmOnceEverySourceDeliveredOrSettled() throws Exception {
    ZmqTransport transport = new ZmqTransport();
    resources.add(transport);
    assertThat(transport.warm()).as("before start").isFalse();
    transport.start(sink);
    await().atMost(Duration.ofSeconds(2)).until(transport::warm); // no workers: nothing to wait for

    FakeVllmPublisher pub = track(new FakeVllmPublisher());
    transport.workersChanged(List.of(worker(W0, pub, 1)));
    assertThat(transport.warm()).as("change not applied or not settled yet").isFalse();
    await().atMost(Duration.ofSeconds(2)).until(transport::warm);

    // A silent endpoint (no engine yet) counts once connected for the settle time.
    String silent = "tcp://127.0.0.1:" + FakeVllmPublisher.freePort();
    transport.workersChanged(List.of(worker(W0, pub, 1), worker(W1, silent, null, 1)));
    assertThat(transport.warm()).isFalse();
    await().atMost(Duration.ofSeconds(2)).until(transport::warm);
    assertThat(transport.sources()).allMatch(ZmqSourceStatus::warm);
  }

  @Test
  void workersWithoutAnEndpointAreIgnored() {
    ZmqTransport transport = start(ZmqSettings.defaults());
    transport.workersChanged(List.of(worker(W0, null, null, 1)));
    await().atMost(Duration.ofSeconds(2)).until(transport::warm);
    assertThat(transport.sources()).isEmpty();
  }

  @Test
  void closeIsIdempotentAndStopsThePoller() throws Exception {
    FakeVllmPublisher pub = track(new FakeVllmPublisher());
    ZmqTransport transport = start(ZmqSettings.defaults());
    transport.workersChanged(List.of(worker(W0, pub, 1)));
    awaitSubscribed(pub, W0);
    Thread poller = transport.pollerThread();
    assertThat(poller.getName()).isEqualTo(ZmqTransport.THREAD_NAME);
    assertThat(poller.isAlive()).isTrue();

    transport.close();
    assertThat(poller.isAlive()).isFalse();
    transport.close();
    transport.workersChanged(List.of(worker(W1, pub, 1)));
    assertThat(transport.warm()).isFalse();
    await().atMost(Duration.ofSeconds(3)).until(() -> pub.connectedSubscribers() == 0);
    int delivered = sink.all().size();
    pub.publishStored(new long[] {1}, null, range(0, 16));
    await()
        .during(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(1))
        .until(() -> sink.all().size() == delivered);
    assertThatThrownBy(() -> transport.start(sink)).isInstanceOf(IllegalStateException.class);
  }

  @ParameterizedTest
  @CsvSource({
    "tcp://10.0.0.7:5557, 0, tcp://10.0.0.7:5557",
    "tcp://10.0.0.7:5557, 3, tcp://10.0.0.7:5560",
    "tcp://[::1]:5557, 1, tcp://[::1]:5558",
    "tcp://engine-0.svc:6000, 2, tcp://engine-0.svc:6002",
    "inproc://kv, 1, inproc://kv_dp1",
    "ipc:///tmp/kv, 0, ipc:///tmp/kv",
  })
  void rankEndpointsAreOffsetLikeVllm(String endpoint, int rank, String expected) {
    assertThat(ZmqEndpoints.offsetEndpointPort(endpoint, rank)).isEqualTo(expected);
  }

  @Test
  void rankEndpointWithoutPortIsRejected() {
    assertThatThrownBy(() -> ZmqEndpoints.offsetEndpointPort("ipc:///tmp/kv", 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ZmqEndpoints.offsetEndpointPort("tcp://host:abc", 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aPollerKilledByAnErrorIsCountedAndRestartedAndDeliversAgain() throws Exception {
    FakeVllmPublisher pub = track(new FakeVllmPublisher());
    ZmqTransport transport = start(ZmqSettings.defaults());
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    transport.bindTo(registry);
    transport.workersChanged(List.of(worker(W0, pub, 1)));
    awaitSubscribed(pub, W0);
    sink.errorNext.set(1);
    pub.publishStored(new long[] {7}, null, range(0, 32));
    await().atMost(Duration.ofSeconds(5)).until(() -> transport.crashes() == 1);
    assertThat(registry.get("infera.events.thread.crashes").functionCounter().count())
        .isEqualTo(1.0);
    // The restarted poller opens the sources again on a fresh context and delivers.
    awaitSubscribed(pub, W0);
    await().atMost(Duration.ofSeconds(5)).until(() -> transport.threadProblem() == null);
    await().atMost(Duration.ofSeconds(5)).until(transport::warm);
    assertThat(transport.status().notReadyReason()).isNull();
    assertThat(transport.crashes()).isEqualTo(1);
  }

  // ------------------------------------------------------------------------------ helpers

  private ZmqTransport start(ZmqSettings settings) {
    ZmqTransport transport = new ZmqTransport(settings);
    resources.add(transport);
    transport.start(sink);
    return transport;
  }

  private FakeVllmPublisher track(FakeVllmPublisher pub) {
    resources.add(pub);
    return pub;
  }

  private static ZmqSettings withReplayTimeout(Duration timeout) {
    return withReplay(timeout, ZmqSettings.defaults().replayBackoff());
  }

  private static ZmqSettings withReplay(Duration timeout, Duration backoff) {
    ZmqSettings d = ZmqSettings.defaults();
    return new ZmqSettings(
        d.pollInterval(),
        d.reconnectInterval(),
        d.reconnectIntervalMax(),
        d.handshakeInterval(),
        d.receiveHighWaterMark(),
        timeout,
        backoff,
        d.settleTime(),
        d.catchUpOnFirstMessage(),
        d.idleProbe(),
        d.bindSub());
  }

  private static WorkerInfo worker(WorkerId id, FakeVllmPublisher pub, int dpSize) {
    return worker(id, pub.endpoint(), pub.replayEndpoint(), dpSize);
  }

  private static WorkerInfo worker(WorkerId id, String zmq, String replay, int dpSize) {
    return new WorkerInfo(
        id, "http://127.0.0.1:1", Role.MIXED, "vllm", dpSize, zmq, replay, Readiness.READY, "it");
  }

  /**
   * ZMQ's slow joiner: what is published before the subscription reaches the PUB socket is lost.
   * Publishes empty probe batches until one from this publisher's rank arrives.
   */
  private void awaitSubscribed(FakeVllmPublisher pub, WorkerId worker) {
    int rank = pub.dpRank();
    int from = sink.all().size();
    await()
        .pollInterval(Duration.ofMillis(50))
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> {
              if (sink.hasLiveAfter(from, worker, rank)) {
                return true;
              }
              pub.publish();
              return false;
            });
  }

  /**
   * Waits until the last probe {@link #awaitSubscribed} sent has been delivered (live or by a
   * replay). Probes sent while the subscription was settling may be lost and answered by a gap
   * replay; a gap is noticed when the next sequence arrives, so once the last one is in, every
   * replay the probes cause has been counted.
   */
  private void awaitProbesSettled(FakeVllmPublisher pub, WorkerId worker) {
    long last = pub.nextSeq() - 1;
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> sink.any(d -> d.worker().equals(worker) && d.seq() == last));
  }

  private static int[] range(int from, int n) {
    return IntStream.range(from, from + n).toArray();
  }

  private static List<Long> seqs(long fromInclusive, long toExclusive) {
    return LongStream.range(fromInclusive, toExclusive).boxed().collect(Collectors.toList());
  }

  private static BlockStored stored(Got d) throws EventDecodeException {
    List<KvEvent> events = d.batch().events();
    assertThat(events).singleElement().isInstanceOf(BlockStored.class);
    return (BlockStored) events.get(0);
  }

  /** One sink call. */
  /** One delivery as the sink saw it; {@code rank()} is the batch's own rank. */
  private record Got(WorkerId worker, int socketRank, List<byte[]> frames, boolean replayed) {

    long seq() {
      try {
        KvEventMessage m = KvEventMessage.fromFrames(frames);
        return m.hasSeq() ? m.seq() : -1;
      } catch (EventDecodeException e) {
        throw new AssertionError(e);
      }
    }

    String topic() {
      return new String(frames.get(0), StandardCharsets.UTF_8);
    }

    EventBatch batch() throws EventDecodeException {
      return KvEventDecoder.decode(frames.get(frames.size() - 1));
    }

    int rank() {
      try {
        return batch().rank();
      } catch (EventDecodeException e) {
        throw new AssertionError(e);
      }
    }
  }

  /** Records every delivery, in order; can be told to throw on the next live messages. */
  private static final class RecordingSink implements EventSink {
    final List<Got> deliveries = new CopyOnWriteArrayList<>();
    final AtomicInteger failNext = new AtomicInteger();
    final AtomicInteger errorNext = new AtomicInteger();

    @Override
    public void accept(Delivery d) {
      if (d instanceof Delivery.Live l) {
        if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          throw new IllegalStateException("sink failure for the test");
        }
        if (errorNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          throw new StackOverflowError("injected");
        }
        deliveries.add(new Got(l.worker(), l.socketRank(), l.frames(), false));
      } else if (d instanceof Delivery.Replayed r) {
        deliveries.add(new Got(r.worker(), r.socketRank(), r.frames(), true));
      } else {
        throw new AssertionError("zmq delivers live and replayed messages only: " + d);
      }
    }

    List<Got> all() {
      return List.copyOf(deliveries);
    }

    boolean any(Predicate<Got> p) {
      return deliveries.stream().anyMatch(p);
    }

    /** Deliveries of {@code worker} with seq >= {@code fromSeq}, in delivery order. */
    List<Got> from(WorkerId worker, long fromSeq) {
      return deliveries.stream()
          .filter(d -> d.worker().equals(worker) && d.frames().size() == 3 && d.seq() >= fromSeq)
          .collect(Collectors.toList());
    }

    boolean hasLive(WorkerId worker, long seq) {
      return any(d -> d.worker().equals(worker) && !d.replayed() && d.seq() == seq);
    }

    boolean hasReplayed(WorkerId worker, long seq) {
      return any(d -> d.worker().equals(worker) && d.replayed() && d.seq() == seq);
    }

    boolean hasLive(WorkerId worker, int rank, long seq) {
      return any(
          d -> d.worker().equals(worker) && !d.replayed() && d.seq() == seq && d.rank() == rank);
    }

    /** Whether a live message of this worker rank arrived after the first {@code index}. */
    boolean hasLiveAfter(int index, WorkerId worker, int rank) {
      List<Got> all = all();
      return all.subList(Math.min(index, all.size()), all.size()).stream()
          .anyMatch(d -> d.worker().equals(worker) && !d.replayed() && d.rank() == rank);
    }

    Got live(WorkerId worker, int rank, long seq) {
      return deliveries.stream()
          .filter(d -> d.worker().equals(worker) && !d.replayed() && d.seq() == seq)
          .filter(d -> d.rank() == rank)
          .findFirst()
          .orElseThrow();
    }
  }
}
