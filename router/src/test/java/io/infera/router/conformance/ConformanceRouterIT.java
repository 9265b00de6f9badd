package io.infera.router.conformance;

import static io.infera.router.conformance.ConformanceRouter.LORA;
import static io.infera.router.conformance.ConformanceRouter.MODEL;
import static io.infera.router.conformance.ConformanceRouter.PAGE;
import static io.infera.router.conformance.EngineProcess.clear;
import static io.infera.router.conformance.EngineProcess.placeholder;
import static io.infera.router.conformance.EngineProcess.remove;
import static io.infera.router.conformance.EngineProcess.store;
import static io.infera.router.conformance.EngineProcess.tokens;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.conformance.ConformanceRouter.Explained;
import io.infera.router.conformance.ConformanceRouter.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The router's {@code zmq} transport against the engines' own publisher code (vLLM 0.33.0's and
 * SGLang 0.5.23's {@code ZmqEventPublisher}, their event structs and their replay ROUTER; see
 * engine_driver.py), asserted only through what the router serves: what a request would hit on
 * which worker and rank, the blocks it holds per worker, its drop counters.
 */
@Timeout(120)
class ConformanceRouterIT {

  private static final String ZMQ = "events: {transport: zmq}";

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

  private EngineProcess engine(String engine, int dpSize) throws Exception {
    return track(EngineProcess.start(engine, dpSize));
  }

  private ConformanceRouter router(Worker... workers) throws Exception {
    ConformanceRouter r = track(new ConformanceRouter(ZMQ, List.of(workers)));
    r.awaitReady();
    return r;
  }

  /** Worker {@code id} fed by a fresh single-rank engine the router is subscribed to. */
  private ConformanceRouter oneWorker(EngineProcess e) throws Exception {
    ConformanceRouter r = router(Worker.zmq("a", e, 1), Worker.plain("b", e.engine));
    e.awaitSubscriber(0);
    return r;
  }

  private static void assertHits(Explained x, String picked, long a, long b) {
    assertThat(x.hits()).as("cache hits per worker").containsEntry("a", a).containsEntry("b", b);
    if (picked != null) {
      assertThat(x.picked()).as("picked").isEqualTo(picked);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"vllm", "sglang"})
  void liveBatchesAreIndexedRoutedAndRemoved(String engineName) throws Exception {
    EngineProcess e = engine(engineName, 1);
    ConformanceRouter router = oneWorker(e);
    int[] t = tokens(1, 5 * PAGE + 7);
    assertThat(e.request("r1", t, PAGE, null, null)).isEqualTo(5);

    e.publish(0, store("r1", 0, 3));
    router.awaitBlocks("a", 3);
    assertHits(router.explain(t), "a", 3, 0);
    // The rest of the prompt, chained on the engine hash of block 2.
    e.publish(0, store("r1", 3, 5));
    router.awaitBlocks("a", 5);
    assertHits(router.explain(t), "a", 5, 0);
    e.publish(0, remove("r1", 3, 5));
    router.awaitBlocks("a", 3);
    assertHits(router.explain(t), null, 3, 0);
    e.publish(0, clear());
    router.awaitBlocks("a", 0);
    assertHits(router.explain(t), null, 0, 0);
    assertThat(router.degraded("a")).isFalse();
    assertThat(router.dropped("decode_error")).isZero();
    assertThat(router.dropped("unknown_parent")).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"vllm", "sglang"})
  void catchUpReplayBringsWhatTheEnginePublishedBeforeTheRouterStarted(String engineName)
      throws Exception {
    EngineProcess e = engine(engineName, 1);
    int[] t = tokens(2, 4 * PAGE);
    e.request("r1", t, PAGE, null, null);
    e.publish(0, store("r1", 0, 2));
    e.publish(0, store("r1", 2, 4));
    // Nobody listened: only the engine's replay socket has them.
    ConformanceRouter router = router(Worker.zmq("a", e, 1), Worker.plain("b", engineName));
    router.awaitBlocks("a", 4);
    assertHits(router.explain(t), "a", 4, 0);
    assertThat(router.degraded("a")).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"vllm", "sglang"})
  void aLostBatchIsFilledFromTheEnginesReplay(String engineName) throws Exception {
    EngineProcess e = engine(engineName, 1);
    ConformanceRouter router = oneWorker(e);
    int[] t1 = tokens(3, 4 * PAGE);
    int[] t2 = tokens(4, 2 * PAGE);
    e.request("r1", t1, PAGE, null, null);
    e.request("r2", t2, PAGE, null, null);
    e.publish(0, store("r1", 0, 2));
    router.awaitBlocks("a", 2);
    e.publishLost(0, store("r1", 2, 4));
    // The next batch shows the gap; the router asks the engine's replay ROUTER for it.
    e.publish(0, store("r2", 0, 2));
    router.awaitBlocks("a", 6);
    assertHits(router.explain(t1), "a", 4, 0);
    assertHits(router.explain(t2), "a", 2, 0);
    await().atMost(Duration.ofSeconds(10)).until(() -> !router.degraded("a"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"vllm", "sglang"})
  void anEngineRestartClearsWhatItHeldBefore(String engineName) throws Exception {
    EngineProcess e = engine(engineName, 1);
    ConformanceRouter router = oneWorker(e);
    int[] before = tokens(5, 4 * PAGE);
    int[] after = tokens(6, 3 * PAGE);
    e.request("r1", before, PAGE, null, null);
    e.publish(0, store("r1", 0, 2));
    e.publish(0, store("r1", 2, 4));
    router.awaitBlocks("a", 4);

    // A new process: sequences start at 0 again and its cache is empty.
    e.restart();
    e.awaitSubscriber(0);
    e.request("r2", after, PAGE, null, null);
    e.publish(0, store("r2", 0, 3));
    router.awaitBlocks("a", 3);
    assertHits(router.explain(before), null, 0, 0);
    assertHits(router.explain(after), "a", 3, 0);
  }

  @ParameterizedTest
  @ValueSource(strings = {"vllm", "sglang"})
  void saltedBlocksHitTheirTenantOnlyAndUnsaltedOnesOnlyUnsaltedRequests(String engineName)
      throws Exception {
    EngineProcess ea = engine(engineName, 1);
    EngineProcess eb = engine(engineName, 1);
    ConformanceRouter router = router(Worker.zmq("a", ea, 1), Worker.zmq("b", eb, 1));
    ea.awaitSubscriber(0);
    eb.awaitSubscriber(0);
    int[] t = tokens(7, 4 * PAGE);
    // The same prompt: tenant-a's salted request on a, an unsalted one on b.
    ea.request("salted", t, PAGE, null, "tenant-a");
    eb.request("plain", t, PAGE, null, null);
    ea.publish(0, store("salted", 0, 4));
    eb.publish(0, store("plain", 0, 4));
    router.awaitBlocks("a", 4);
    router.awaitBlocks("b", 4);

    assertHits(router.explain(t, MODEL, "tenant-a"), "a", 4, 0);
    // No cross-tenant leak: an unsalted request does not hit the salted blocks...
    assertHits(router.explain(t, MODEL, null), "b", 0, 4);
    // ... and another tenant hits neither.
    assertHits(router.explain(t, MODEL, "tenant-b"), null, 0, 0);
  }

  @ParameterizedTest
  @ValueSource(strings = {"vllm", "sglang"})
  void loraBlocksHitTheAdapterOnlyAlsoWhenSalted(String engineName) throws Exception {
    EngineProcess ea = engine(engineName, 1);
    EngineProcess eb = engine(engineName, 1);
    EngineProcess ec = engine(engineName, 1);
    ConformanceRouter router =
        router(Worker.zmq("a", ea, 1), Worker.zmq("b", eb, 1), Worker.zmq("c", ec, 1));
    ea.awaitSubscriber(0);
    eb.awaitSubscriber(0);
    ec.awaitSubscriber(0);
    int[] t = tokens(8, 3 * PAGE);
    ea.request("lora", t, PAGE, LORA, null);
    eb.request("plain", t, PAGE, null, null);
    ec.request("lora-salted", t, PAGE, LORA, "tenant-a");
    ea.publish(0, store("lora", 0, 3));
    eb.publish(0, store("plain", 0, 3));
    ec.publish(0, store("lora-salted", 0, 3));
    router.awaitBlocks("a", 3);
    router.awaitBlocks("b", 3);
    router.awaitBlocks("c", 3);

    Explained lora = router.explain(t, LORA, null);
    assertThat(lora.hits()).containsEntry("a", 3L).containsEntry("b", 0L).containsEntry("c", 0L);
    assertThat(lora.picked()).isEqualTo("a");
    Explained base = router.explain(t, MODEL, null);
    assertThat(base.hits()).containsEntry("a", 0L).containsEntry("b", 3L).containsEntry("c", 0L);
    assertThat(base.picked()).isEqualTo("b");
    Explained both = router.explain(t, LORA, "tenant-a");
    assertThat(both.hits()).containsEntry("a", 0L).containsEntry("b", 0L).containsEntry("c", 3L);
    assertThat(both.picked()).isEqualTo("c");
    Explained saltOnly = router.explain(t, MODEL, "tenant-a");
    assertThat(saltOnly.hits())
        .containsEntry("a", 0L)
        .containsEntry("b", 0L)
        .containsEntry("c", 0L);
  }

  @Test
  void vllmOffloadPlaceholdersInAGpuBatchAreSkippedAndTheRestIsIndexed() throws Exception {
    EngineProcess e = engine("vllm", 1);
    ConformanceRouter router = oneWorker(e);
    int[] t1 = tokens(9, 4 * PAGE);
    int[] t2 = tokens(10, 2 * PAGE);
    e.request("r1", t1, PAGE, null, null);
    e.request("r2", t2, PAGE, null, null);
    // The offloading connector's BlockStored (token_ids [], block_size 0, medium CPU) after and
    // before GPU stores in the same batch.
    e.publish(0, store("r1", 0, 4), placeholder("r1", 0, "CPU"), placeholder("r1", 1, "CPU"));
    e.publish(0, placeholder("r2", 0, "CPU"), store("r2", 0, 2));
    router.awaitBlocks("a", 6);
    assertHits(router.explain(t1), "a", 4, 0);
    assertHits(router.explain(t2), "a", 2, 0);
    assertThat(router.degraded("a")).isFalse();
    assertThat(router.dropped("decode_error")).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"vllm", "sglang"})
  void dataParallelRanksPublishOnPortPlusRankAndRouteToTheirRank(String engineName)
      throws Exception {
    EngineProcess e = engine(engineName, 2);
    ConformanceRouter router = router(Worker.zmq("a", e, 2), Worker.plain("b", engineName));
    e.awaitSubscriber(0);
    e.awaitSubscriber(1);
    int[] t0 = tokens(11, 2 * PAGE);
    int[] t1 = tokens(12, 4 * PAGE);
    e.request("r0", t0, PAGE, null, null);
    e.request("r1", t1, PAGE, null, null);
    e.publish(0, store("r0", 0, 2));
    e.publish(1, store("r1", 0, 4));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> router.blocksPerRank("a"), m -> m.equals(Map.of(0L, 2L, 1L, 4L)));
    Explained x1 = router.explain(t1);
    assertHits(x1, "a", 4, 0);
    assertThat(x1.pickedRank()).isEqualTo(1);
    Explained x0 = router.explain(t0);
    assertHits(x0, "a", 2, 0);
    assertThat(x0.pickedRank()).isEqualTo(0);
  }

  @ParameterizedTest
  @ValueSource(strings = {"vllm", "sglang"})
  void aDataParallelRanksLostBatchIsFilledFromItsOwnReplayPort(String engineName) throws Exception {
    EngineProcess e = engine(engineName, 2);
    ConformanceRouter router = router(Worker.zmq("a", e, 2), Worker.plain("b", engineName));
    e.awaitSubscriber(0);
    e.awaitSubscriber(1);
    int[] t0 = tokens(15, 2 * PAGE);
    int[] t1 = tokens(16, 3 * PAGE);
    e.request("r0", t0, PAGE, null, null);
    e.request("r1", t1, PAGE, null, null);
    e.publish(0, store("r0", 0, 2));
    e.publish(1, store("r0", 0, 1));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> router.blocksPerRank("a"), m -> m.equals(Map.of(0L, 2L, 1L, 1L)));
    // Rank 1's replay ROUTER is at the replay port + 1 (the engine's offset_endpoint_port).
    e.publishLost(1, store("r1", 0, 2));
    e.publish(1, store("r1", 2, 3));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> router.blocksPerRank("a"), m -> m.equals(Map.of(0L, 2L, 1L, 4L)));
    Explained x = router.explain(t1);
    assertHits(x, "a", 3, 0);
    assertThat(x.pickedRank()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> !router.degraded("a"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"vllm", "sglang"})
  void anMlaBackendsLargerBlockSizeIsLearnedPerWorker(String engineName) throws Exception {
    EngineProcess e = engine(engineName, 1);
    ConformanceRouter router = oneWorker(e);
    // The attention backend forced 64-token blocks; the router was told 16.
    int mla = 64;
    int[] t = tokens(14, 4 * mla + 10);
    e.request("r1", t, mla, null, null);
    e.publish(0, store("r1", 0, 2));
    e.publish(0, store("r1", 2, 4));
    router.awaitBlocks("a", 4);
    Explained x = router.explain(t);
    assertThat(x.picked()).isEqualTo("a");
    assertThat(x.hits().get("a")).as("hits on the MLA worker").isPositive();
    assertThat(x.hits().get("b")).isZero();
    assertThat(router.dropped("block_size_mismatch")).isZero();
    // The status names the size the router expected and the one the worker's events carry.
    assertThat(router.workerStatus("a"))
        .containsEntry("block_size_expected", (long) PAGE)
        .containsEntry("block_size_seen", (long) mla);
    // A prompt sharing only the first 64-token block hits that block alone.
    int[] prefix = java.util.Arrays.copyOf(t, mla + 20);
    assertThat(router.explain(prefix).hits().get("a")).isEqualTo(x.hits().get("a") / 4);
  }
}
