package io.infera.router.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.http.RouterHarness;
import io.infera.router.http.StubEngine;
import io.infera.router.json.Json;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.WorkerId;
import io.infera.router.tokenize.ChatInput;
import io.infera.router.tokenize.TestTokenizers;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * A worker whose attention backend forced 64-token blocks in a router configured for 16: its events
 * are indexed at 64, requests are hashed at both sizes, and the status names the override.
 */
class BlockSizeOverrideIT {

  private static final int FORCED = 64;

  private Vertx vertx;
  private StubEngine a;
  private StubEngine b;
  private RouterHarness router;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    a = new StubEngine(vertx, "a");
    b = new StubEngine(vertx, "b");
    router = RouterHarness.start(vertx, List.of(a, b), null);
    await().atMost(Duration.ofSeconds(10)).until(() -> router.get("/ready").statusCode() == 200);
  }

  @AfterEach
  void stop() throws Exception {
    router.close();
    a.close();
    b.close();
    vertx.close().toCompletionStage().toCompletableFuture().get();
  }

  @Test
  void aForcedBlockSizeIsLearnedUsedForMatchingAndShownInTheStatus() throws Exception {
    String system = "You are a meticulous assistant who double-checks every claim. ".repeat(40);
    List<Object> msgs =
        List.of(
            Map.of("role", "system", "content", system), Map.of("role", "user", "content", "Q1"));
    int[] ids = TestTokenizers.qwen3().encodeChat(ChatInput.of(new ArrayList<>(msgs))).ids();
    int forcedBlocks = ids.length / FORCED;
    assertThat(forcedBlocks).isGreaterThanOrEqualTo(3);
    long[] engineHashes = new long[forcedBlocks];
    for (int i = 0; i < forcedBlocks; i++) {
      engineHashes[i] = 5000 + i;
    }
    publishStored(
        WorkerId.of("b"), 0, engineHashes, Arrays.copyOf(ids, forcedBlocks * FORCED), FORCED);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                router
                    .adminGet("/v1/admin/cache-view/b")
                    .body()
                    .contains("\"block_count\":" + forcedBlocks));

    Map<?, ?> status = (Map<?, ?>) Json.parse(router.adminGet("/v1/admin/status").body());
    assertThat(status.get("page_size")).isEqualTo(16L);
    assertThat(status.get("request_block_sizes")).isEqualTo(List.of(16L, 64L));
    Map<?, ?> wa = worker(status, "a");
    Map<?, ?> wb = worker(status, "b");
    assertThat(wa.get("block_size_expected")).isEqualTo(16L);
    assertThat(wa.get("block_size_seen")).isNull();
    assertThat(wb.get("block_size_expected")).isEqualTo(16L);
    assertThat(wb.get("block_size_seen")).isEqualTo(64L);
    Map<?, ?> dropped = (Map<?, ?>) ((Map<?, ?>) status.get("index")).get("dropped");
    assertThat(dropped.get("block_size_mismatch")).isEqualTo(0L);
    assertThat(router.adminGet("/v1/admin/cache-view/b").body()).contains("\"block_size\":64");

    // Hits are counted in blocks of the page size: each 64-token block is four 16-token ones.
    int hits = forcedBlocks * FORCED / 16;
    String body = "{\"messages\":" + Json.write(msgs) + "}";
    Map<?, ?> explain = (Map<?, ?>) Json.parse(router.adminPost("/v1/admin/explain", body).body());
    assertThat(explain.get("picked")).isEqualTo("b");
    assertThat(((Number) explain.get("request_blocks")).intValue()).isEqualTo(ids.length / 16);
    HttpResponse<String> r = router.post("/v1/chat/completions", body);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-infera-worker")).hasValue("b");
    assertThat(r.headers().firstValue("x-infera-cache-hit-blocks"))
        .hasValue(Integer.toString(hits));
    // The request is released when its answer has been written, just after the client has it.
    await().atMost(Duration.ofSeconds(5)).until(() -> router.inFlight() == 0);
  }

  private static Map<?, ?> worker(Map<?, ?> status, String id) {
    return ((List<?>) status.get("workers"))
        .stream()
            .map(w -> (Map<?, ?>) w)
            .filter(w -> id.equals(w.get("id")))
            .findFirst()
            .orElseThrow();
  }

  private void publishStored(WorkerId worker, long seq, long[] hashes, int[] tokens, int size)
      throws Exception {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(3).packDouble(System.currentTimeMillis() / 1000.0);
      p.packArrayHeader(1).packMapHeader(7);
      p.packString("type").packString("BlockStored");
      p.packString("block_hashes").packArrayHeader(hashes.length);
      for (long h : hashes) {
        p.packLong(h);
      }
      p.packString("parent_block_hash").packNil();
      p.packString("token_ids").packArrayHeader(tokens.length);
      for (int t : tokens) {
        p.packInt(t);
      }
      p.packString("block_size").packInt(size);
      p.packString("medium").packString("GPU");
      p.packString("kv_cache_spec_kind").packString("mla_attention");
      p.packInt(0);
      router.bus.publish(
          worker, List.of(new byte[0], KvEventMessage.seqBytes(seq), p.toByteArray()));
    }
  }
}
