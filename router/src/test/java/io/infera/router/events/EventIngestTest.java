package io.infera.router.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.kv.Events;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.WorkerId;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which source the index's writer applies a delivery to, and the event lag it keeps. */
class EventIngestTest {

  private static final WorkerId A = WorkerId.of("a");
  private static final byte[] TOPIC = "kv-events".getBytes(StandardCharsets.UTF_8);

  private final PrefixIndex index = new PrefixIndex(16);
  private final Clock clock = Clock.fixed(Instant.ofEpochMilli(1_000_250), ZoneOffset.UTC);
  private final EventIngest ingest = new EventIngest(index, 1000, clock).start();

  @AfterEach
  void close() {
    ingest.close();
  }

  private static List<byte[]> frames(long seq, double ts, Integer batchRank) {
    KvEvent e = Events.stored(16, new long[] {seq + 100}, null, Events.range(16 * (int) seq, 16));
    return List.of(
        TOPIC, KvEventMessage.seqBytes(seq), FakeVllmPublisher.batchPayload(ts, batchRank, e));
  }

  private long[] view(int rank) throws Exception {
    return ingest.onWriter(i -> i.viewHashes(SourceId.of("a", rank))).get(10, TimeUnit.SECONDS);
  }

  /**
   * The rank of the socket a message came from names its source. The old default {@code
   * accept(worker, socketRank, frames)} dropped it, so a batch without a rank of its own (or with
   * another) landed on rank 0 (or that rank): the "socket 1" rows failed.
   */
  @ParameterizedTest(name = "{0} from socket {1}, batch rank {2} → source rank {3}")
  @CsvSource(
      nullValues = "none",
      value = {
        "live, 1, none, 1",
        "live, 1, 0, 1",
        "live, 2, 2, 2",
        "live, -1, 2, 2",
        "live, -1, none, 0",
        "replayed, 1, none, 1",
        "replayed, -1, 3, 3",
        "streamed, 1, none, 1",
        "streamed, 2, 0, 2",
      })
  void theSourceIsTheSocketsOrSubjectsRankWhenTheTransportKnowsIt(
      String kind, int socketRank, Integer batchRank, int expectedRank) throws Exception {
    ingest.workers(Set.of(A), Set.of());
    List<byte[]> f = frames(0, 1.0, batchRank);
    BiFunction<Integer, List<byte[]>, Delivery> make =
        switch (kind) {
          case "live" -> (r, fr) -> new Delivery.Live(A, r, fr);
          case "replayed" -> (r, fr) -> new Delivery.Replayed(A, r, fr);
          default -> (r, fr) -> new Delivery.Streamed(A, r, 1, fr);
        };
    ingest.accept(make.apply(socketRank, f));
    for (int r = 0; r < 4; r++) {
      assertThat(view(r)).as("rank %d", r).hasSize(r == expectedRank ? 1 : 0);
    }
  }

  @Test
  void ranksOfDeliveriesAreChecked() {
    assertThatThrownBy(() -> new Delivery.Live(A, -2, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Delivery.Streamed(A, -1, 1, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new Delivery.Live(A, List.of()).socketRank()).isEqualTo(Delivery.UNKNOWN_RANK);
  }

  @Test
  void messagesOfUnknownWorkersAreCountedAndDropped() throws Exception {
    ingest.workers(Set.of(A), Set.of());
    ingest.accept(new Delivery.Live(WorkerId.of("b"), 0, frames(0, 1.0, null)));
    ingest.flush().get(10, TimeUnit.SECONDS);
    assertThat(ingest.unknownSourceMessages()).isEqualTo(1);
    assertThat(index.stats().sources()).isEmpty();
  }

  @Test
  void eventLagIsKeptPerKnownWorkerAndBoundAsAGauge() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ingest.bindTo(registry);
    assertThat(ingest.eventLagSeconds(A)).isNull();
    ingest.workers(Set.of(A), Set.of());
    // Known, nothing applied yet: 0, as the gauge says.
    assertThat(ingest.eventLagSeconds(A)).isZero();
    Gauge gauge = registry.find("infera.kv.event.lag").tag("worker", "a").gauge();
    assertThat(gauge).isNotNull();
    // The clock says 1000.25 s; the batch was stamped at 997.75 s.
    ingest.accept(new Delivery.Live(A, 0, frames(0, 997.75, null)));
    ingest.flush().get(10, TimeUnit.SECONDS);
    assertThat(ingest.eventLagSeconds(A)).isEqualTo(2.5);
    assertThat(gauge.value()).isEqualTo(2.5);
    // A batch from the future counts as no lag.
    ingest.accept(new Delivery.Live(A, 0, frames(1, 2000.0, null)));
    ingest.flush().get(10, TimeUnit.SECONDS);
    assertThat(ingest.eventLagSeconds(A)).isZero();
    ingest.workers(Set.of(), Set.of(A));
    assertThat(ingest.eventLagSeconds(A)).isNull();
    assertThat(registry.find("infera.kv.event.lag").gauges()).isEmpty();
  }

  @Test
  void workersKnownBeforeBindingGetTheirGaugeWhenBound() {
    ingest.workers(Set.of(A, WorkerId.of("b")), Set.of());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ingest.bindTo(registry);
    assertThat(registry.find("infera.kv.event.lag").gauges()).hasSize(2);
  }

  @Test
  void onWriterReadsOnTheWriterThreadAfterWhatWasQueuedAndReportsFailures() throws Exception {
    ingest.workers(java.util.Set.of(A), java.util.Set.of());
    ingest.accept(new Delivery.Live(A, 0, frames(0, 1000.0, null)));
    String thread =
        ingest.onWriter(i -> Thread.currentThread().getName()).get(10, TimeUnit.SECONDS);
    assertThat(thread).isNotEqualTo(Thread.currentThread().getName()).contains("kv-writer");
    assertThat(view(0)).hasSize(1);
    java.util.concurrent.CompletableFuture<Object> failed =
        ingest.onWriter(
            i -> {
              throw new IllegalStateException("boom");
            });
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> failed.get(10, TimeUnit.SECONDS))
        .hasRootCauseMessage("boom");
    // The writer carries on after a failed read.
    assertThat(ingest.onWriter(i -> 7).get(10, TimeUnit.SECONDS)).isEqualTo(7);
  }

  /**
   * A rank at or above the worker's discovered data-parallel size is dropped whole and counted: no
   * view is created for it (a forged rank must not grow the index), the worker's real ranks work.
   */
  @ParameterizedTest(name = "dp size {0}: socket rank {1}, batch rank {2} → applied {3}")
  @CsvSource(
      nullValues = "none",
      value = {
        "1, -1, none, true",
        "1, -1, 0, true",
        "1, -1, 1, false",
        "1, 1, none, false",
        "2, 1, none, true",
        "2, 2, 0, false",
        "2, -1, 2147483647, false",
      })
  void ranksAtOrAboveTheDpSizeAreDroppedAndCounted(
      int dpSize, int socketRank, Integer batchRank, boolean applied) throws Exception {
    ingest.workers(java.util.Map.of(A, dpSize), Set.of());
    ingest.accept(new Delivery.Live(A, socketRank, frames(0, 1.0, batchRank)));
    ingest.flush().get(10, TimeUnit.SECONDS);
    long sources =
        ingest.onWriter(i -> (long) i.stats().sources().size()).get(10, TimeUnit.SECONDS);
    assertThat(sources).isEqualTo(applied ? 1 : 0);
    assertThat(index.dropped(A, io.infera.router.kv.DropReason.RANK_OUT_OF_RANGE))
        .isEqualTo(applied ? 0 : 1);
    assertThat(ingest.applied(A)).isEqualTo(applied ? 1 : 0);
  }

  @Test
  void aSnapshotOfARankTheWorkerDoesNotHaveIsRejected() throws Exception {
    ingest.workers(java.util.Map.of(A, 2), Set.of());
    io.infera.router.kv.ViewSnapshot snap =
        io.infera.router.kv.ViewSnapshot.of(16, 3, 1, new long[] {7}, new long[] {8});
    ingest.accept(new Delivery.Snapshot(A, 2, snap));
    ingest.accept(new Delivery.Snapshot(A, 1, snap));
    ingest.flush().get(10, TimeUnit.SECONDS);
    assertThat(ingest.rejectedSnapshots()).isEqualTo(1);
    assertThat(ingest.seededSnapshots()).isEqualTo(1);
    assertThat(view(1)).containsExactly(7);
    assertThat(index.dropped(A, io.infera.router.kv.DropReason.RANK_OUT_OF_RANGE)).isEqualTo(1);
  }

  @Test
  void anErrorOnTheWriterIsReportedCountedAndNeverFreezesTheTransports() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ingest.bindTo(registry);
    ingest.workers(Set.of(A), Set.of());
    assertThat(ingest.writerProblem()).isNull();
    assertThat(registry.get("infera.kv.writer.dead").gauge().value()).isZero();
    // The injected failure: an Error thrown on the writer thread, as an OutOfMemoryError would be.
    java.util.concurrent.CompletableFuture<Object> dying =
        ingest.onWriter(
            i -> {
              throw new OutOfMemoryError("injected");
            });
    assertThatThrownBy(() -> dying.get(10, TimeUnit.SECONDS))
        .hasMessageContaining("index writer thread died");
    assertThat(ingest.writerProblem())
        .contains("index writer thread died")
        .contains("OutOfMemoryError: injected");
    assertThat(registry.get("infera.kv.writer.dead").gauge().value()).isEqualTo(1.0);
    // A transport delivering more than the queue holds is not blocked: the deliveries are dropped.
    long t0 = System.nanoTime();
    for (int i = 0; i < 3000; i++) {
      ingest.accept(new Delivery.Live(A, 0, frames(i, 1000.0, null)));
    }
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    assertThat(ingest.abandonedCommands()).isGreaterThanOrEqualTo(3000);
    assertThat(registry.get("infera.kv.writer.abandoned").functionCounter().count())
        .isGreaterThanOrEqualTo(3000);
    assertThat(ingest.applied(A)).isZero();
    assertThatThrownBy(() -> ingest.flush().get(10, TimeUnit.SECONDS))
        .hasMessageContaining("index writer thread died");
  }
}
