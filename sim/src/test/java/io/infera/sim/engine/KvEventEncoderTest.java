package io.infera.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEvent.AllBlocksCleared;
import io.infera.router.kv.KvEvent.BlockRemoved;
import io.infera.router.kv.KvEvent.BlockStored;
import io.infera.router.kv.KvEventDecoder;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.WorkerId;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.value.ArrayValue;
import org.msgpack.value.MapValue;
import org.msgpack.value.Value;
import org.msgpack.value.ValueFactory;

class KvEventEncoderTest {

  private static final int BS = 4;
  // h1 is above 2^63: it must travel as a msgpack uint64.
  private static final long H1 = 0xF1E2D3C4B5A69788L;
  private static final long H2 = 0x0123456789ABCDEFL;
  private static final long H3 = 0x7777777777777777L;
  private static final int[] TOKENS = IntStream.rangeClosed(1, 12).toArray();

  private static List<KvEvent> events() {
    return List.of(
        stored(new long[] {H1, H2}, null, slice(0, 8)),
        stored(new long[] {H3}, H2, slice(8, 12)),
        new BlockRemoved(new long[] {H1, H3}, null, null),
        new AllBlocksCleared());
  }

  @ParameterizedTest
  @EnumSource(Flavor.class)
  void everyFlavorDecodesToTheSameCacheContent(Flavor flavor) throws Exception {
    byte[] payload = KvEventEncoder.encode(flavor, 12.5, events().subList(0, 2), 3);
    EventBatch batch = KvEventDecoder.decode(payload);
    assertThat(batch.ts()).isEqualTo(12.5);
    assertThat(batch.dpRank()).isEqualTo(3);

    PrefixIndex index = new PrefixIndex(BS);
    index.apply(WorkerId.of("w"), 0, batch);
    long[] expected = new BlockHasher(BS).requestHashes(TOKENS, 0);
    assertThat(index.viewHashes(new SourceId(WorkerId.of("w"), 3)))
        .containsExactlyInAnyOrder(expected);

    List<KvEvent> all =
        KvEventDecoder.decode(KvEventEncoder.encode(flavor, 1, events(), 0)).events();
    long removed =
        all.stream()
            .filter(e -> e instanceof BlockRemoved)
            .mapToLong(e -> ((BlockRemoved) e).blockHashes().length)
            .sum();
    assertThat(removed).isEqualTo(2);
    assertThat(all.get(all.size() - 1)).isInstanceOf(AllBlocksCleared.class);
  }

  @Test
  void vllmIsAnArrayBatchOfTaggedMapEventsAsVllm033SendsIt() throws Exception {
    ArrayValue batch = unpack(KvEventEncoder.encode(Flavor.VLLM, 2.0, events(), 1)).asArrayValue();
    assertThat(batch.size()).isEqualTo(3);
    assertThat(batch.get(2).asIntegerValue().asInt()).isEqualTo(1);
    ArrayValue evs = batch.get(1).asArrayValue();
    assertThat(evs.size()).isEqualTo(4);
    MapValue stored = evs.get(0).asMapValue();
    // msgspec writes the tag first, then the fields in declaration order; nil defaults omitted.
    assertThat(stored.keySet())
        .containsExactly(
            key("type"),
            key("block_hashes"),
            key("parent_block_hash"),
            key("token_ids"),
            key("block_size"),
            key("lora_id"),
            key("medium"),
            key("lora_name"),
            key("group_idx"),
            key("kv_cache_spec_kind"));
    assertThat(stored.map().get(key("type")).asStringValue().asString()).isEqualTo("BlockStored");
    assertThat(stored.map().get(key("medium")).asStringValue().asString()).isEqualTo("GPU");
    assertThat(stored.map().get(key("kv_cache_spec_kind")).asStringValue().asString())
        .isEqualTo("full_attention");
    assertUnsigned(stored.map().get(key("block_hashes")).asArrayValue().get(0), H1);
    assertThat(evs.get(2).asMapValue().keySet())
        .containsExactly(key("type"), key("block_hashes"), key("medium"), key("group_idx"));
    assertThat(evs.get(3).asMapValue().keySet()).containsExactly(key("type"));
  }

  @Test
  void vllmExtraKeysAreUntaggedLoraOnEveryBlockSaltOnTheFirst() throws Exception {
    BlockStored root =
        new BlockStored(
            new long[] {H1, H2}, null, slice(0, 8), BS, null, "sql", null, null, null, "t1");
    BlockStored child =
        new BlockStored(new long[] {H3}, H2, slice(8, 12), BS, null, "sql", null, null, null, "t1");
    BlockStored salted =
        new BlockStored(
            new long[] {H1, H2}, null, slice(0, 8), BS, null, null, null, null, null, "t2");
    for (Flavor flavor : List.of(Flavor.VLLM, Flavor.VLLM_MAP)) {
      ArrayValue evs = events(KvEventEncoder.encode(flavor, 1, List.of(root, child, salted), 0));
      assertThat(extraKeys(evs.get(0))).isEqualTo("[[\"sql\",\"t1\"],[\"sql\"]]");
      assertThat(extraKeys(evs.get(1))).isEqualTo("[[\"sql\"]]");
      assertThat(extraKeys(evs.get(2))).isEqualTo("[[\"t2\"],null]");
      // The router reads them back: salt and LoRA chain exactly as a request's hashes do.
      List<KvEvent> back =
          KvEventDecoder.decode(KvEventEncoder.encode(flavor, 1, List.of(root, child, salted), 0))
              .events();
      assertThat(((BlockStored) back.get(0)).cacheSalt()).isEqualTo("t1");
      assertThat(((BlockStored) back.get(0)).loraName()).isEqualTo("sql");
      assertThat(((BlockStored) back.get(2)).cacheSalt()).isEqualTo("t2");
      PrefixIndex index = new PrefixIndex(BS);
      index.apply(WorkerId.of("w"), 0, new EventBatch(1, back, 0, 0));
      long[] tenant =
          new BlockHasher(BS).requestHashes(TOKENS, BlockHasher.firstParent("sql", "t1"));
      long[] plain =
          new BlockHasher(BS).requestHashes(TOKENS, BlockHasher.firstParent("sql", null));
      assertThat(index.match(tenant).hits(WorkerId.of("w"))).isEqualTo(3);
      assertThat(index.match(plain).hits(WorkerId.of("w"))).isZero();
    }
  }

  @Test
  void vllmArraysCarryEveryFieldUpToLoraName() throws Exception {
    ArrayValue batch =
        unpack(KvEventEncoder.encode(Flavor.VLLM_ARRAY, 2.0, events(), 1)).asArrayValue();
    assertThat(batch.size()).isEqualTo(3);
    assertThat(batch.get(2).asIntegerValue().asInt()).isEqualTo(1);
    ArrayValue evs = batch.get(1).asArrayValue();
    assertThat(evs.size()).isEqualTo(4);
    ArrayValue stored = evs.get(0).asArrayValue();
    assertThat(stored.size()).isEqualTo(8);
    assertThat(stored.get(0).asStringValue().asString()).isEqualTo("BlockStored");
    assertThat(stored.get(2).isNilValue()).isTrue();
    assertThat(stored.get(4).asIntegerValue().asInt()).isEqualTo(BS);
    assertThat(stored.get(6).asStringValue().asString()).isEqualTo("GPU");
    assertThat(stored.get(7).isNilValue()).isTrue();
    assertThat(evs.get(2).asArrayValue().size()).isEqualTo(3);
    assertThat(evs.get(3).asArrayValue().size()).isEqualTo(1);
    assertUnsigned(stored.get(1).asArrayValue().get(0), H1);
  }

  @Test
  void vllmMapsUseFieldNames() throws Exception {
    MapValue batch = unpack(KvEventEncoder.encode(Flavor.VLLM_MAP, 2.0, events(), 0)).asMapValue();
    assertThat(batch.map()).containsKeys(key("ts"), key("events"), key("data_parallel_rank"));
    ArrayValue evs = batch.map().get(key("events")).asArrayValue();
    MapValue stored = evs.get(0).asMapValue();
    assertThat(stored.map().get(key("type")).asStringValue().asString()).isEqualTo("BlockStored");
    assertThat(stored.map())
        .containsKeys(
            key("block_hashes"),
            key("parent_block_hash"),
            key("token_ids"),
            key("block_size"),
            key("lora_id"),
            key("medium"),
            key("lora_name"),
            key("kv_cache_spec_kind"));
    assertThat(stored.map().get(key("parent_block_hash")).isNilValue()).isTrue();
    assertUnsigned(stored.map().get(key("block_hashes")).asArrayValue().get(0), H1);
    MapValue removed = evs.get(2).asMapValue();
    assertThat(removed.map().get(key("type")).asStringValue().asString()).isEqualTo("BlockRemoved");
  }

  @Test
  void sglangSendsOneMapEventPerPageWithATopLevelSalt() throws Exception {
    ArrayValue batch =
        unpack(KvEventEncoder.encode(Flavor.SGLANG, 2.0, events(), 0)).asArrayValue();
    assertThat(batch.size()).isEqualTo(3);
    ArrayValue evs = batch.get(1).asArrayValue();
    // 2 + 1 stores, 2 removes, 1 clear.
    assertThat(evs.size()).isEqualTo(6);
    for (int i = 0; i < 3; i++) {
      MapValue s = evs.get(i).asMapValue();
      assertThat(s.keySet())
          .containsExactly(
              key("type"),
              key("block_hashes"),
              key("parent_block_hash"),
              key("token_ids"),
              key("block_size"),
              key("lora_id"),
              key("medium"));
      assertThat(s.map().get(key("block_hashes")).asArrayValue().size()).isEqualTo(1);
      assertThat(s.map().get(key("token_ids")).asArrayValue().size()).isEqualTo(BS);
    }
    assertThat(evs.get(0).asMapValue().map().get(key("parent_block_hash")).isNilValue()).isTrue();
    // The parent of the 2nd page is the 1st.
    assertUnsigned(evs.get(1).asMapValue().map().get(key("parent_block_hash")), H1);
    assertThat(evs.get(3).asMapValue().keySet())
        .containsExactly(key("type"), key("block_hashes"), key("medium"));

    List<KvEvent> decoded =
        KvEventDecoder.decode(KvEventEncoder.encode(Flavor.SGLANG, 2.0, events(), 0)).events();
    BlockStored second = (BlockStored) decoded.get(1);
    assertThat(second.blockHashes()).containsExactly(H2);
    assertThat(second.parentBlockHash()).isEqualTo(H1);
    assertThat(second.tokenIds()).containsExactly(slice(4, 8));
    assertThat(second.medium()).isEqualTo("GPU");

    BlockStored salted =
        new BlockStored(
            new long[] {H1, H2}, null, slice(0, 8), BS, null, "sql", null, null, null, "t1");
    ArrayValue pages = events(KvEventEncoder.encode(Flavor.SGLANG, 1, List.of(salted), 0));
    for (Value page : pages) {
      assertThat(page.asMapValue().map().get(key("cache_salt")).asStringValue().asString())
          .isEqualTo("t1");
      assertThat(page.asMapValue().map().get(key("lora_name")).asStringValue().asString())
          .isEqualTo("sql");
    }
  }

  private static ArrayValue events(byte[] payload) throws Exception {
    Value batch = unpack(payload);
    return batch.isArrayValue()
        ? batch.asArrayValue().get(1).asArrayValue()
        : batch.asMapValue().map().get(key("events")).asArrayValue();
  }

  private static String extraKeys(Value event) {
    return event.asMapValue().map().get(key("extra_keys")).toJson();
  }

  @Test
  void perPageLeavesSingleBlockEventsAlone() {
    List<KvEvent> one = List.of(stored(new long[] {H3}, H2, slice(8, 12)));
    assertThat(KvEventEncoder.perPage(one)).isEqualTo(one);
  }

  private static BlockStored stored(long[] hashes, Long parent, int[] tokens) {
    return new BlockStored(hashes, parent, tokens, BS, null, null, null, null, null, null);
  }

  private static int[] slice(int from, int to) {
    return java.util.Arrays.copyOfRange(TOKENS, from, to);
  }

  private static Value unpack(byte[] payload) throws Exception {
    return MessagePack.newDefaultUnpacker(payload).unpackValue();
  }

  private static Value key(String s) {
    return ValueFactory.newString(s);
  }

  private static void assertUnsigned(Value v, long hash) {
    assertThat(v.asIntegerValue().asBigInteger().toString()).isEqualTo(Long.toUnsignedString(hash));
    if (hash < 0) {
      assertThat(v.asIntegerValue().mostSuccinctMessageFormat()).isEqualTo(MessageFormat.UINT64);
    }
  }
}
