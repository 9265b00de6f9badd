package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.kv.EventDecodeException.Kind;
import io.infera.router.kv.KvEvent.AllBlocksCleared;
import io.infera.router.kv.KvEvent.BlockRemoved;
import io.infera.router.kv.KvEvent.BlockStored;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

class KvEventDecoderTest {

  static List<String> validFixtures() {
    return Fixtures.valid();
  }

  static List<String> malformedFixtures() {
    return Fixtures.malformed();
  }

  @Test
  void fixturesArePresent() {
    assertThat(validFixtures())
        .hasSizeGreaterThanOrEqualTo(11)
        .contains("vllm-0.33.0", "sglang-0.5.23", "malformed-events-dropped");
    assertThat(malformedFixtures()).hasSizeGreaterThanOrEqualTo(15);
  }

  @ParameterizedTest
  @MethodSource("validFixtures")
  void decodesEveryFixtureToWhatPythonExpects(String name) throws Exception {
    EventBatch batch = KvEventDecoder.decode(Fixtures.payload(name));
    String actual =
        batch.events().stream()
            .map(e -> io.infera.router.cli.EventsJson.line(e, batch.rank()))
            .collect(Collectors.joining("\n"));
    assertThat(actual).isEqualTo(Fixtures.text(name + ".jsonl").strip());
    StringBuilder skipped = new StringBuilder();
    batch.skipped().forEach((r, n) -> skipped.append(r.label()).append(' ').append(n).append('\n'));
    assertThat(skipped.toString().strip())
        .isEqualTo(Fixtures.optionalText(name + ".skipped").strip());
  }

  @ParameterizedTest
  @MethodSource("malformedFixtures")
  void malformedFixturesFailWithTheExpectedKind(String name) {
    Kind expected = Kind.valueOf(Fixtures.text(name + ".kind").strip());
    assertThatThrownBy(() -> KvEventDecoder.decode(Fixtures.payload(name)))
        .isInstanceOfSatisfying(
            EventDecodeException.class, e -> assertThat(e.kind()).isEqualTo(expected))
        .hasMessageNotContaining("Exception");
  }

  @Test
  void unknownEventTypesAreSkippedAndCounted() throws Exception {
    assertThat(KvEventDecoder.decode(Fixtures.payload("vllm-map")).unknownEvents()).isEqualTo(1);
    assertThat(KvEventDecoder.decode(Fixtures.payload("sglang-bigram-salt")).unknownEvents())
        .isEqualTo(1);
    assertThat(KvEventDecoder.decode(Fixtures.payload("vllm-array")).unknownEvents()).isZero();
  }

  @Test
  void cacheSaltComesFromVllmExtraKeysOrSglangMetadata() throws Exception {
    BlockStored vllm =
        (BlockStored) KvEventDecoder.decode(Fixtures.payload("vllm-map")).events().get(0);
    assertThat(vllm.cacheSalt()).isEqualTo("tenant-a");
    BlockStored sglang =
        (BlockStored) KvEventDecoder.decode(Fixtures.payload("sglang-bigram-salt")).events().get(0);
    assertThat(sglang.cacheSalt()).isEqualTo("tenant-b");
    assertThat(sglang.loraName()).isNull();
    // The LoRA name repeated in extra_keys is not a salt.
    BlockStored lora =
        (BlockStored) KvEventDecoder.decode(Fixtures.payload("vllm-array")).events().get(0);
    assertThat(lora.loraName()).isEqualTo("adapter-x");
    assertThat(lora.cacheSalt()).isNull();
  }

  @Test
  void saltIsLastBlockZeroStringNotRepeatedInBlockOne() throws Exception {
    // extra_keys: block 0 = (lora, mm-id, salt), block 1 = (lora, mm-id)
    byte[] payload =
        pack(
            p -> {
              p.packMapHeader(2).packString("ts").packDouble(1).packString("events");
              p.packArrayHeader(1).packMapHeader(7);
              p.packString("type").packString("BlockStored");
              p.packString("extra_keys").packArrayHeader(2);
              p.packArrayHeader(3).packString("lora").packString("mm-1").packString("salt-9");
              p.packArrayHeader(2).packString("lora").packString("mm-1");
              p.packString("block_hashes").packArrayHeader(2).packLong(1).packLong(2);
              p.packString("parent_block_hash").packNil();
              p.packString("token_ids").packArrayHeader(2).packInt(1).packInt(2);
              p.packString("block_size").packInt(1);
              p.packString("lora_name").packString("lora");
            });
    BlockStored e = (BlockStored) KvEventDecoder.decode(payload).events().get(0);
    assertThat(e.cacheSalt()).isEqualTo("salt-9");
    assertThat(e.loraName()).isEqualTo("lora");
  }

  @Test
  void hashesNormalizeFromEveryEncoding() throws Exception {
    BlockStored e =
        (BlockStored) KvEventDecoder.decode(Fixtures.payload("hash-encodings")).events().get(0);
    assertThat(e.blockHashes()).containsExactly(0x18191a1b1c1d1e1fL, -2L, 0xF000000000000001L);
    assertThat(e.parentBlockHash()).isEqualTo(0x0102L);
  }

  @Test
  void bigramPairsFlattenToTheirFirstElements() throws Exception {
    BlockStored e =
        (BlockStored) KvEventDecoder.decode(Fixtures.payload("sglang-bigram-salt")).events().get(1);
    assertThat(e.tokenIds()).containsExactly(14, 15, 16, 17);
    assertThat(e.parentBlockHash()).isEqualTo(0x1111111111111111L);
  }

  @Test
  void trailingFieldsMayBeAbsentAndTakeDefaults() throws Exception {
    EventBatch b = KvEventDecoder.decode(Fixtures.payload("vllm-array-minimal"));
    assertThat(b.dpRank()).isNull();
    assertThat(b.rank()).isZero();
    BlockStored s = (BlockStored) b.events().get(0);
    assertThat(s.medium()).isNull();
    assertThat(s.loraName()).isNull();
    assertThat(s.groupIdx()).isNull();
    assertThat(b.events().get(1))
        .isEqualTo(new BlockRemoved(new long[] {0x1111111111111111L}, null, null));
  }

  @Test
  void mapBatchCarriesRankAndIgnoresUnknownKeys() throws Exception {
    EventBatch b = KvEventDecoder.decode(Fixtures.payload("vllm-map"));
    assertThat(b.rank()).isEqualTo(2);
    assertThat(b.ts()).isEqualTo(1764500000.25);
    assertThat(b.events()).hasSize(3);
    assertThat(b.events().get(2)).isInstanceOf(AllBlocksCleared.class);
  }

  @Test
  void groupIndexAndSpecKindAreDecoded() throws Exception {
    BlockStored s =
        (BlockStored) KvEventDecoder.decode(Fixtures.payload("vllm-array")).events().get(0);
    assertThat(s.groupIdx()).isEqualTo(1);
    assertThat(s.kvCacheSpecKind()).isEqualTo("sliding_window");
    assertThat(KvEvent.isFullAttention(s.kvCacheSpecKind())).isFalse();
    assertThat(KvEvent.isFullAttention("mla_attention")).isTrue();
    assertThat(KvEvent.isFullAttention(null)).isTrue();
    assertThat(KvEvent.isDeviceTier("CPU_PINNED")).isFalse();
    assertThat(KvEvent.isDeviceTier("GPU")).isTrue();
  }

  @Test
  void errorMessagesNameTheEventAndField() {
    assertThatThrownBy(
            () -> KvEventDecoder.decode(Fixtures.payload("bad-truncated-after-bad-event")))
        .hasMessageContaining("events[1]")
        .hasMessageContaining("token_ids");
    assertThatThrownBy(() -> KvEventDecoder.decode(Fixtures.payload("bad-huge-array")))
        .hasMessageContaining("2000000000 elements");
    assertThatThrownBy(() -> KvEventDecoder.decode(null))
        .isInstanceOfSatisfying(
            EventDecodeException.class, e -> assertThat(e.kind()).isEqualTo(Kind.EMPTY));
  }

  @Test
  void tokenIdsMustFitUnsigned32Bits() throws Exception {
    byte[] ok =
        pack(
            p -> {
              p.packArrayHeader(2).packDouble(0).packArrayHeader(1).packArrayHeader(5);
              p.packString("BlockStored").packArrayHeader(1).packLong(1).packNil();
              p.packArrayHeader(1).packLong(0xffff_ffffL).packInt(1);
            });
    assertThat(((BlockStored) KvEventDecoder.decode(ok).events().get(0)).tokenIds())
        .containsExactly(-1);
    byte[] tooBig =
        pack(
            p -> {
              p.packArrayHeader(2).packDouble(0).packArrayHeader(1).packArrayHeader(5);
              p.packString("BlockStored").packArrayHeader(1).packLong(1).packNil();
              p.packArrayHeader(1).packLong(0x1_0000_0000L).packInt(1);
            });
    EventBatch dropped = KvEventDecoder.decode(tooBig);
    assertThat(dropped.events()).isEmpty();
    assertThat(dropped.skipped().malformed()).isEqualTo(1);
    assertThat(dropped.skipped().firstError())
        .contains("events[0]")
        .contains("token id 4294967296 is outside [0, 4294967295]");
  }

  @Test
  void framesOfThreeTwoAndOneAreAccepted() throws Exception {
    byte[] payload = Fixtures.payload("vllm-array-minimal");
    KvEventMessage three =
        KvEventMessage.fromFrames(
            List.of("kv-events".getBytes(), KvEventMessage.seqBytes(41), payload));
    assertThat(three.seq()).isEqualTo(41);
    assertThat(three.hasSeq()).isTrue();
    assertThat(three.payload()).isSameAs(payload);
    KvEventMessage two = KvEventMessage.fromFrames(List.of(new byte[0], payload));
    assertThat(two.hasSeq()).isFalse();
    assertThat(two.payload()).isSameAs(payload);
    // ATOM's publisher without a topic: the payload alone.
    KvEventMessage one = KvEventMessage.fromFrames(List.of(payload));
    assertThat(one.hasSeq()).isFalse();
    assertThat(one.topic()).isEmpty();
    assertThat(one.payload()).isSameAs(payload);
    KvEventMessage end =
        KvEventMessage.fromFrames(List.of(new byte[0], KvEventMessage.seqBytes(-1), new byte[0]));
    assertThat(end.isReplayEnd()).isTrue();
    assertThat(KvEventMessage.seqFrame(KvEventMessage.seqBytes(Long.MAX_VALUE)))
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void badFramesAreTypedErrors() {
    assertThatThrownBy(() -> KvEventMessage.fromFrames(List.of()))
        .isInstanceOfSatisfying(
            EventDecodeException.class, e -> assertThat(e.kind()).isEqualTo(Kind.EMPTY));
    assertThatThrownBy(
            () ->
                KvEventMessage.fromFrames(
                    List.of(new byte[0], new byte[8], new byte[1], new byte[1])))
        .isInstanceOf(EventDecodeException.class)
        .hasMessageContaining("4 frames");
    assertThatThrownBy(
            () -> KvEventMessage.fromFrames(List.of(new byte[0], new byte[4], new byte[1])))
        .isInstanceOf(EventDecodeException.class)
        .hasMessageContaining("seq frame has 4 bytes");
  }

  @Test
  void vllm033ArrayBatchOfMapEventsReadsUntaggedSaltAndLora() throws Exception {
    EventBatch b = KvEventDecoder.decode(Fixtures.payload("vllm-0.33.0"));
    assertThat(b.dpRank()).isEqualTo(1);
    BlockStored salted = (BlockStored) b.events().get(0);
    assertThat(salted.cacheSalt()).isEqualTo("tenant-a");
    assertThat(salted.loraName()).isNull();
    // (LoRA name, (mm id, offset), salt, embeds digest): the leading LoRA name is not the salt.
    BlockStored all = (BlockStored) b.events().get(1);
    assertThat(all.loraName()).isEqualTo("sql-lora");
    assertThat(all.cacheSalt()).isEqualTo("tenant-b");
    BlockStored child = (BlockStored) b.events().get(2);
    assertThat(child.cacheSalt()).isNull();
    assertThat(child.parentBlockHash()).isEqualTo(0x4444444444444444L);
  }

  @Test
  void offloadPlaceholdersAreSkippedAndCountedTheRestOfTheBatchKept() throws Exception {
    EventBatch b = KvEventDecoder.decode(Fixtures.payload("vllm-0.33.0"));
    assertThat(b.skipped().offloadPlaceholder()).isEqualTo(1);
    assertThat(b.skipped().total()).isEqualTo(1);
    assertThat(b.events()).hasSize(7);
    assertThat(b.events())
        .noneMatch(e -> e instanceof BlockStored s && s.blockSize() == 0)
        .last()
        .isInstanceOf(AllBlocksCleared.class);
  }

  @Test
  void blockSizeZeroOnTheDeviceTierIsMalformedNotAPlaceholder() throws Exception {
    byte[] gpu = placeholder("GPU", 0);
    EventBatch b = KvEventDecoder.decode(gpu);
    assertThat(b.skipped().malformed()).isEqualTo(1);
    assertThat(b.skipped().offloadPlaceholder()).isZero();
    assertThat(b.skipped().firstError()).contains("block_size: 0");
    // With tokens it is no placeholder either, whatever the medium.
    assertThat(KvEventDecoder.decode(placeholder("CPU", 4)).skipped().malformed()).isEqualTo(1);
    assertThat(KvEventDecoder.decode(placeholder("STORAGE", 0)).skipped().offloadPlaceholder())
        .isEqualTo(1);
    assertThat(KvEventDecoder.decode(placeholder(null, 0)).skipped().malformed()).isEqualTo(1);
  }

  /** [ts, [placeholder, good], 0] with the placeholder's medium and token count. */
  private static byte[] placeholder(String medium, int tokens) throws IOException {
    return pack(
        p -> {
          p.packArrayHeader(3).packDouble(1).packArrayHeader(2);
          p.packMapHeader(8).packString("type").packString("BlockStored");
          p.packString("block_hashes").packArrayHeader(1).packLong(7);
          p.packString("parent_block_hash").packNil();
          p.packString("token_ids").packArrayHeader(tokens);
          for (int t = 0; t < tokens; t++) {
            p.packInt(t);
          }
          p.packString("block_size").packInt(0);
          p.packString("lora_id").packNil();
          p.packString("medium");
          if (medium == null) {
            p.packNil();
          } else {
            p.packString(medium);
          }
          p.packString("lora_name").packNil();
          p.packArrayHeader(5).packString("BlockStored").packArrayHeader(1).packLong(8).packNil();
          p.packArrayHeader(1).packInt(1).packInt(1);
          p.packInt(0);
        });
  }

  @Test
  void oneBadEventDropsOnlyItself() throws Exception {
    EventBatch b = KvEventDecoder.decode(Fixtures.payload("malformed-events-dropped"));
    assertThat(b.events()).hasSize(1);
    assertThat(((BlockStored) b.events().get(0)).blockHashes())
        .containsExactly(0x3333333333333333L);
    assertThat(b.skipped().malformed()).isEqualTo(5);
    assertThat(b.skipped().firstError())
        .contains("events[0]")
        .contains("block_hashes")
        .contains("expected an integer or bytes, got string");
  }

  @Test
  void sglang0523TopLevelCacheSaltIsRead() throws Exception {
    EventBatch b = KvEventDecoder.decode(Fixtures.payload("sglang-0.5.23"));
    assertThat(b.dpRank()).isNull();
    assertThat(((BlockStored) b.events().get(0)).cacheSalt()).isEqualTo("tenant-s");
    assertThat(((BlockStored) b.events().get(1)).cacheSalt()).isEqualTo("tenant-s");
    BlockStored lora = (BlockStored) b.events().get(2);
    assertThat(lora.loraName()).isEqualTo("sql-lora");
    assertThat(lora.cacheSalt()).isNull();
    assertThat(lora.tokenIds()).containsExactly(20, 21, 22, 23);
    assertThat(KvEvent.isDeviceTier(((BlockStored) b.events().get(3)).medium())).isFalse();
  }

  @Test
  void typedExtraKeysNameSaltAndLora() throws Exception {
    EventBatch b = KvEventDecoder.decode(Fixtures.payload("vllm-typed-extra-keys"));
    BlockStored typed = (BlockStored) b.events().get(0);
    assertThat(typed.cacheSalt()).isEqualTo("tenant-c");
    assertThat(typed.loraName()).isEqualTo("sql-lora");
    assertThat(((BlockStored) b.events().get(1)).cacheSalt()).isEqualTo("tenant-d");
    assertThat(((BlockStored) b.events().get(2)).cacheSalt()).isEqualTo("tenant-e");
  }

  @ParameterizedTest
  @MethodSource("extraKeyCases")
  void extraKeysSaltRules(String what, String loraName, List<List<Object>> extraKeys, String salt)
      throws Exception {
    byte[] payload =
        pack(
            p -> {
              p.packArrayHeader(2).packDouble(1).packArrayHeader(1).packMapHeader(6);
              p.packString("type").packString("BlockStored");
              p.packString("extra_keys");
              packValue(p, extraKeys);
              p.packString("block_hashes").packArrayHeader(1).packLong(1);
              p.packString("parent_block_hash").packNil();
              p.packString("token_ids").packArrayHeader(1).packInt(1);
              p.packString("block_size").packInt(1);
            });
    byte[] withLora =
        loraName == null
            ? payload
            : pack(
                p -> {
                  p.packArrayHeader(2).packDouble(1).packArrayHeader(1).packMapHeader(7);
                  p.packString("type").packString("BlockStored");
                  p.packString("extra_keys");
                  packValue(p, extraKeys);
                  p.packString("block_hashes").packArrayHeader(1).packLong(1);
                  p.packString("parent_block_hash").packNil();
                  p.packString("token_ids").packArrayHeader(1).packInt(1);
                  p.packString("block_size").packInt(1);
                  // After extra_keys on purpose: the rule must see a lora_name that comes later.
                  p.packString("lora_name").packString(loraName);
                });
    BlockStored e = (BlockStored) KvEventDecoder.decode(withLora).events().get(0);
    assertThat(e.cacheSalt()).as(what).isEqualTo(salt);
  }

  static List<org.junit.jupiter.params.provider.Arguments> extraKeyCases() {
    Map<String, Object> typedSalt = Map.of("type", "cache_salt", "salt", "t");
    return List.of(
        args("none", null, null, null),
        args("bare salt", null, List.of(List.of("t")), "t"),
        args("LoRA only", "l", List.of(List.of("l")), null),
        args("LoRA then salt", "l", List.of(List.of("l", "t"), List.of("l")), "t"),
        args("salt equal to the LoRA name", "x", List.of(List.of("x", "x"), List.of("x")), "x"),
        args("mm pair is no salt", null, List.of(List.of(List.of("img", 0)), List.of()), null),
        args("embeds digest is no salt", null, List.of(List.of(new byte[] {1, 2})), null),
        args(
            "older bare mm hash repeats on block 1",
            null,
            List.of(List.of("mm-1", "t"), List.of("mm-1")),
            "t"),
        args("typed wins over bare", null, List.of(List.of("bare", typedSalt)), "t"),
        args("tagged tuple", null, List.of(List.of(List.of("cache_salt", "t"))), "t"),
        args("mm pair named like a tag", null, List.of(List.of(List.of("cache_salt", 3))), null),
        args("empty block 0", null, java.util.Arrays.asList((Object) null), null));
  }

  private static org.junit.jupiter.params.provider.Arguments args(
      String what, String lora, Object extraKeys, String salt) {
    return org.junit.jupiter.params.provider.Arguments.of(what, lora, extraKeys, salt);
  }

  /** Packs nil, strings, ints, byte arrays, lists and maps. */
  static void packValue(MessageBufferPacker p, Object v) throws IOException {
    if (v == null) {
      p.packNil();
    } else if (v instanceof String s) {
      p.packString(s);
    } else if (v instanceof Integer i) {
      p.packInt(i);
    } else if (v instanceof byte[] b) {
      p.packBinaryHeader(b.length).writePayload(b);
    } else if (v instanceof List<?> l) {
      p.packArrayHeader(l.size());
      for (Object o : l) {
        packValue(p, o);
      }
    } else if (v instanceof Map<?, ?> m) {
      p.packMapHeader(m.size());
      for (Map.Entry<?, ?> en : new java.util.TreeMap<>(m).entrySet()) {
        packValue(p, en.getKey());
        packValue(p, en.getValue());
      }
    } else {
      throw new IllegalArgumentException("cannot pack " + v);
    }
  }

  interface PackBody {
    void write(MessageBufferPacker p) throws IOException;
  }

  static byte[] pack(PackBody body) throws IOException {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      body.write(p);
      return p.toByteArray();
    }
  }
}
