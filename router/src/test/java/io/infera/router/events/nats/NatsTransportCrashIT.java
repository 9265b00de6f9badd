package io.infera.router.events.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.events.Delivery;
import io.infera.router.events.EventIngest;
import io.infera.router.events.EventSink;
import io.infera.router.events.nats.NatsTransportIT.Chain;
import io.infera.router.events.nats.NatsTransportIT.Publisher;
import io.infera.router.events.nats.NatsTransportIT.Reference;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.WorkerId;
import io.infera.router.testing.NatsServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code nats} transport's consumer thread hit by an {@link Error} (injected in the sink it
 * delivers to, as an {@code OutOfMemoryError} would strike): it is counted, reported as a thread
 * problem until the restarted consumer runs, and the view is exact again once a snapshot covers the
 * message lost in the crash.
 */
@Timeout(60)
class NatsTransportCrashIT {

  @TempDir Path dir;

  private NatsServer server;
  private Publisher pub;
  private EventIngest ingest;
  private NatsTransport transport;

  @AfterEach
  void stop() throws Exception {
    if (transport != null) {
      transport.close();
    }
    if (ingest != null) {
      ingest.close();
    }
    if (pub != null) {
      pub.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** Passes deliveries to the ingest, throwing an Error instead on the n-th streamed one. */
  private static final class Throwing implements EventSink {
    final EventIngest target;
    final AtomicInteger streamed = new AtomicInteger();
    final int failAt;

    Throwing(EventIngest target, int failAt) {
      this.target = target;
      this.failAt = failAt;
    }

    @Override
    public void accept(Delivery d) {
      if (d instanceof Delivery.Streamed && streamed.incrementAndGet() == failAt) {
        throw new OutOfMemoryError("injected");
      }
      target.accept(d);
    }

    @Override
    public CompletableFuture<Void> flush() {
      return target.flush();
    }
  }

  private long[] view() throws Exception {
    return ingest.onWriter(i -> i.viewHashes(SourceId.of("a", 0))).get(10, TimeUnit.SECONDS);
  }

  @Test
  void aCrashedConsumerIsCountedRestartedAndRepairedFromTheNextSnapshot() throws Exception {
    server = NatsServer.start(dir.resolve("nats"));
    pub = new Publisher(server.url(), NatsTransportIT.PREFIX, 0);
    ingest = new EventIngest(new PrefixIndex(NatsTransportIT.PAGE), 10_000).start();
    transport =
        new NatsTransport(
            NatsTransportIT.natsConfig(server.url()),
            NatsTransportIT.PAGE,
            NatsTransportIT.settings());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    transport.bindTo(registry);
    Throwing sink = new Throwing(ingest, 3);
    transport.start(sink);
    ingest.workers(Set.of(WorkerId.of("a")), Set.of());
    transport.workersChanged(List.of(NatsTransportIT.worker("a", 1)));
    await().atMost(Duration.ofSeconds(15)).until(transport::warm);
    assertThat(transport.threadProblem()).isNull();

    Chain chain = new Chain("a", 0, 1000);
    Reference ref = new Reference();
    long w = 0;
    for (int i = 0; i < 5; i++) {
      w = chain.publishNext(pub, ref);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> transport.crashes() == 1);
    assertThat(registry.get("infera.events.thread.crashes").functionCounter().count())
        .isEqualTo(1.0);
    // Restarted after a back-off: the problem clears once the new consumer runs.
    await().atMost(Duration.ofSeconds(10)).until(() -> transport.threadProblem() == null);
    // The message of the crash never reached the index: its source is degraded, not silently
    // missing a batch.
    await().atMost(Duration.ofSeconds(10)).until(() -> transport.lagMessages() == 0);
    NatsSourceStatus degraded =
        transport.sources().stream().filter(s -> s.rank() == 0).findFirst().orElseThrow();
    assertThat(degraded.degraded()).isTrue();
    assertThat(degraded.degradedReason()).isEqualTo("engine_gap");
    assertThat(view()).hasSizeLessThan(5);
    // The relay's next snapshot covers the lost message: the view is exact again.
    pub.putSnapshot(ref.snapshot("a", w), "a", 0);
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () ->
                transport.sources().stream().noneMatch(NatsSourceStatus::degraded)
                    && view().length == 5);
    assertThat(view()).containsExactly(ref.view("a"));
    assertThat(transport.crashes()).isEqualTo(1);
    assertThat(transport.status().notReadyReason()).isNull();
  }
}
