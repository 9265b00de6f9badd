package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.kv.EventDecodeException.Kind;
import io.infera.router.kv.KvEvent.AllBlocksCleared;
import io.infera.router.kv.KvEvent.BlockRemoved;
import io.infera.router.kv.KvEvent.BlockStored;
import java.io.IOException;
import java.util.List;
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
    assertThat(validFixtures()).hasSizeGreaterThanOrEqualTo(7);
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
    assertThatThrownBy(() -> KvEventDecoder.decode(Fixtures.payload("bad-hash-string")))
        .hasMessageContaining("events[0]")
        .hasMessageContaining("block_hashes")
        .hasMessageContaining("expected an integer or bytes, got string");
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
    assertThatThrownBy(() -> KvEventDecoder.decode(tooBig))
        .isInstanceOfSatisfying(
            EventDecodeException.class, e -> assertThat(e.kind()).isEqualTo(Kind.INVALID));
  }

  @Test
  void framesOfThreeAndTwoAreAccepted() throws Exception {
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
    assertThatThrownBy(() -> KvEventMessage.fromFrames(List.of(new byte[1])))
        .isInstanceOf(EventDecodeException.class)
        .hasMessageContaining("1 frames");
    assertThatThrownBy(
            () -> KvEventMessage.fromFrames(List.of(new byte[0], new byte[4], new byte[1])))
        .isInstanceOf(EventDecodeException.class)
        .hasMessageContaining("seq frame has 4 bytes");
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
