package io.infera.router.conformance;

import static io.infera.router.conformance.ConformanceRouter.PAGE;
import static io.infera.router.conformance.EngineProcess.store;
import static io.infera.router.conformance.EngineProcess.tokens;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.conformance.ConformanceRouter.Worker;
import io.infera.router.kv.WorkerId;
import io.infera.router.relay.Relay;
import io.infera.router.relay.RelayOptions;
import io.infera.router.testing.NatsServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Engine → relay → NATS → router with the engines' own publisher code (engine_driver.py): the relay
 * forwards the real batches, fills gaps and catches up from the engine's real replay ROUTER, and
 * picks up where it left off after its own restart; the router ({@code nats} transport) indexes and
 * routes exactly what the engine stored.
 */
@Timeout(120)
class ConformanceRelayIT {

  private static final WorkerId A = WorkerId.of("a");

  @TempDir Path dir;

  private final List<AutoCloseable> resources = new ArrayList<>();

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

  private RelayOptions options(NatsServer nats, EngineProcess e) {
    return RelayOptions.builder(e.pub(), nats.url(), A)
        .replayEndpoint(e.replay())
        .engine(e.engine)
        .blockSize(PAGE)
        .snapshotMinInterval(Duration.ZERO)
        .publishTimeout(Duration.ofSeconds(1))
        .reconnectWait(Duration.ofMillis(100))
        .reconnectWaitMax(Duration.ofSeconds(1))
        .drainTimeout(Duration.ofSeconds(5))
        .build();
  }

  private Relay relay(RelayOptions o) {
    Relay relay = new Relay(o);
    relay.start();
    await().atMost(Duration.ofSeconds(20)).until(relay::ready);
    return relay;
  }

  private ConformanceRouter router(NatsServer nats, String engine) throws Exception {
    ConformanceRouter r =
        track(
            new ConformanceRouter(
                "events:\n  transport: nats\n  nats: {url: '" + nats.url() + "'}",
                List.of(Worker.plain("a", engine), Worker.plain("b", engine))));
    r.awaitReady();
    return r;
  }

  @ParameterizedTest
  @ValueSource(strings = {"vllm", "sglang"})
  void theRelayForwardsLiveBatchesAndFillsALostOneFromTheEnginesReplay(String engineName)
      throws Exception {
    NatsServer nats = track(NatsServer.start(dir.resolve("nats")));
    EngineProcess e = track(EngineProcess.start(engineName, 1));
    track(relay(options(nats, e)));
    ConformanceRouter router = router(nats, engineName);
    e.awaitSubscriber(0);
    int[] t1 = tokens(21, 4 * PAGE);
    int[] t2 = tokens(22, 2 * PAGE);
    e.request("r1", t1, PAGE, null, null);
    e.request("r2", t2, PAGE, null, null);
    e.publish(0, store("r1", 0, 2));
    router.awaitBlocks("a", 2);
    e.publishLost(0, store("r1", 2, 4));
    e.publish(0, store("r2", 0, 2));
    router.awaitBlocks("a", 6);
    var x = router.explain(t1);
    assertThat(x.hits()).containsEntry("a", 4L).containsEntry("b", 0L);
    assertThat(x.picked()).isEqualTo("a");
    assertThat(router.explain(t2).hits()).containsEntry("a", 2L);
    assertThat(router.degraded("a")).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"vllm", "sglang"})
  void aRestartedRelayCatchesUpFromTheEngineAndTheRouterMissesNothing(String engineName)
      throws Exception {
    NatsServer nats = track(NatsServer.start(dir.resolve("nats")));
    EngineProcess e = track(EngineProcess.start(engineName, 1));
    int[] t1 = tokens(23, 6 * PAGE);
    int[] t2 = tokens(24, 2 * PAGE);
    e.request("r1", t1, PAGE, null, null);
    e.request("r2", t2, PAGE, null, null);
    // Before any relay: its catch-up replay at start brings this batch.
    e.publish(0, store("r1", 0, 2));
    RelayOptions o = options(nats, e);
    Relay first = relay(o);
    ConformanceRouter router = router(nats, engineName);
    router.awaitBlocks("a", 2);
    e.awaitSubscriber(0);
    e.publish(0, store("r1", 2, 4));
    router.awaitBlocks("a", 4);

    // The relay goes away mid-stream; the engine goes on publishing to nobody.
    first.close();
    e.publish(0, store("r1", 4, 6));
    Relay second = track(relay(o));
    // It resumes after the last batch it stored, from the engine's replay.
    router.awaitBlocks("a", 6);
    e.awaitSubscriber(0);
    e.publish(0, store("r2", 0, 2));
    router.awaitBlocks("a", 8);
    assertThat(router.explain(t1).hits()).containsEntry("a", 6L).containsEntry("b", 0L);
    assertThat(router.explain(t2).hits()).containsEntry("a", 2L);
    assertThat(router.degraded("a")).isFalse();
    assertThat(second.alive()).isTrue();
  }
}
