package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.kv.DropReason;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.Fixtures;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEvent.AllBlocksCleared;
import io.infera.router.kv.KvEvent.BlockRemoved;
import io.infera.router.kv.KvEventDecoder;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.WorkerId;
import io.infera.router.tokenize.TestTokenizers;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Salted and LoRA blocks as vLLM 0.33.0 and SGLang 0.5.23 publish them (the fixtures their own
 * event classes encoded), through the index to what a request hashes to: a tenant hits its own
 * blocks, an unsalted request or another tenant does not (no cross-tenant hits), in both
 * directions.
 */
class EngineSaltedBlocksTest {

  private static final WorkerId W = WorkerId.of("w");
  private static final RouterConfig CFG;

  static {
    try {
      CFG =
          ConfigLoader.parse(
              "model: m\nloraAdapters: [sql-lora]\npageSize: 4\n"
                  + "tokenizer: {path: 'builtin:qwen3'}\n"
                  + "discovery: {workers: [{id: w, url: 'http://x:1'}]}\n");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private final RequestAnalyzer analyzer = new RequestAnalyzer(CFG, TestTokenizers.qwen3(), null);

  /** The fixture's stores only (its removals and the final clear would empty the view). */
  private static PrefixIndex indexOf(String fixture) throws Exception {
    EventBatch b = KvEventDecoder.decode(Fixtures.payload(fixture));
    List<KvEvent> stores =
        b.events().stream()
            .filter(e -> !(e instanceof BlockRemoved) && !(e instanceof AllBlocksCleared))
            .toList();
    PrefixIndex index = new PrefixIndex(CFG.pageSize());
    index.apply(W, KvEventMessage.NO_SEQ, new EventBatch(b.ts(), stores, 0, b.skipped()));
    return index;
  }

  private int hits(PrefixIndex index, String body) {
    RequestAnalyzer.Result r =
        analyzer.analyze(
            body.getBytes(StandardCharsets.UTF_8), RequestAnalyzer.Endpoint.COMPLETIONS);
    assertThat(r).isInstanceOf(RequestAnalyzer.Result.Ok.class);
    return index.match(((RequestAnalyzer.Result.Ok) r).analyzed().hashes()).hits(W);
  }

  @ParameterizedTest(name = "{0}: {1} -> {2}")
  @CsvSource(
      delimiter = '#',
      value = {
        // vLLM 0.33.0: salt as the bare string in block 0's extra_keys.
        "vllm-0.33.0#{\"prompt\":[1,2,3,4,5,6,7,8],\"cache_salt\":\"tenant-a\"}#2",
        "vllm-0.33.0#{\"prompt\":[1,2,3,4,5,6,7,8]}#0",
        "vllm-0.33.0#{\"prompt\":[1,2,3,4,5,6,7,8],\"cache_salt\":\"tenant-z\"}#0",
        // LoRA name first, then (mm, offset), the salt and a digest; a child block chains on.
        "vllm-0.33.0#{\"model\":\"sql-lora\",\"prompt\":[1,2,3,4,5,6,7,8,9,10,11,12],"
            + "\"cache_salt\":\"tenant-b\"}#3",
        "vllm-0.33.0#{\"model\":\"sql-lora\",\"prompt\":[1,2,3,4,5,6,7,8,9,10,11,12]}#0",
        "vllm-0.33.0#{\"prompt\":[1,2,3,4,5,6,7,8,9,10,11,12],\"cache_salt\":\"tenant-b\"}#0",
        // SGLang 0.5.23: a top-level cache_salt on every page; lora_name on the bigram page.
        "sglang-0.5.23#{\"prompt\":[1,2,3,4,5,6,7,8],\"cache_salt\":\"tenant-s\"}#2",
        "sglang-0.5.23#{\"prompt\":[1,2,3,4,5,6,7,8]}#0",
        "sglang-0.5.23#{\"model\":\"sql-lora\",\"prompt\":[20,21,22,23]}#1",
        "sglang-0.5.23#{\"prompt\":[20,21,22,23]}#0",
        // Typed extra_keys: salt and LoRA from tagged structs, a tagged tuple, a legacy value.
        "vllm-typed-extra-keys#{\"model\":\"sql-lora\",\"prompt\":[1,2,3,4,5,6,7,8],"
            + "\"cache_salt\":\"tenant-c\"}#2",
        "vllm-typed-extra-keys#{\"prompt\":[1,2,3,4,5,6,7,8],\"cache_salt\":\"tenant-c\"}#0",
        "vllm-typed-extra-keys#{\"prompt\":[1,2,3,4],\"cache_salt\":\"tenant-d\"}#1",
        "vllm-typed-extra-keys#{\"prompt\":[1,2,3,4]}#0",
        "vllm-typed-extra-keys#{\"prompt\":[5,6,7,8],\"cache_salt\":\"tenant-e\"}#1",
        "vllm-typed-extra-keys#{\"prompt\":[5,6,7,8]}#0",
      })
  void aTenantHitsItsOwnBlocksAndNoOneElseDoes(String fixture, String body, int expected)
      throws Exception {
    assertThat(hits(indexOf(fixture), body)).isEqualTo(expected);
  }

  @org.junit.jupiter.api.Test
  void offloadPlaceholdersAndLowerTiersAreCountedNotIndexed() throws Exception {
    PrefixIndex index = indexOf("vllm-0.33.0");
    assertThat(index.dropped(W, DropReason.OFFLOAD_PLACEHOLDER)).isEqualTo(1);
    // The self-describing offloaded chunk [1, 2, 3, 4] is on the CPU tier: no device hit.
    assertThat(index.dropped(W, DropReason.LOWER_TIER)).isEqualTo(1);
    assertThat(hits(index, "{\"prompt\":[1,2,3,4]}")).isZero();
    assertThat(index.stats().dropped(DropReason.OFFLOAD_PLACEHOLDER)).isEqualTo(1);
  }
}
