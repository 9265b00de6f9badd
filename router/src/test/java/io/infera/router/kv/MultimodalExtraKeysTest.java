package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.KvEvent.BlockStored;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessagePacker;

/**
 * {@code BlockStored} events of multimodal prompts: vLLM names each block's images in {@code
 * extra_keys}, typed ({@code {"type": "mm", "modality", "hash", "block_offset"}}) or untagged as
 * vLLM 0.33.0 publishes them ({@code [mm_identifier, offset]} pairs: its {@code
 * to_event_extra_keys} drops the {@code "mm"} tag of the block-hash key {@code ("mm", identifier,
 * offset)}, the offset negative on the blocks after the image's first). The router cannot rebuild
 * the engine's image placeholders, so it keeps the events (their token ids re-hash as any other
 * block), takes no salt or LoRA from the image identities, and routes multimodal requests by image
 * affinity (docs/routing.md, "Multimodal requests").
 */
class MultimodalExtraKeysTest {

  private static final String MM_HASH =
      "9f2c6a0e1d7b4c3a8e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f70812";

  /** One map event of three blocks, the image spanning blocks 0..2 from offset 2 of block 0. */
  private static byte[] event(ExtraKeys keys) throws Exception {
    return KvEventDecoderTest.pack(
        p -> {
          p.packArrayHeader(3).packDouble(1764500010.5).packArrayHeader(1);
          p.packMapHeader(10);
          p.packString("type").packString("BlockStored");
          p.packString("block_hashes").packArrayHeader(3).packLong(11).packLong(12).packLong(13);
          p.packString("parent_block_hash").packNil();
          p.packString("token_ids").packArrayHeader(12);
          for (int t = 0; t < 12; t++) {
            p.packInt(t < 2 ? 100 + t : 151655); // text, then the image placeholder id
          }
          p.packString("block_size").packInt(4);
          p.packString("lora_id").packNil();
          p.packString("medium").packString("GPU");
          p.packString("lora_name").packNil();
          p.packString("extra_keys").packArrayHeader(3);
          for (int b = 0; b < 3; b++) {
            keys.block(p, b);
          }
          p.packString("kv_cache_spec_kind").packString("full_attention");
          p.packInt(0);
        });
  }

  interface ExtraKeys {
    void block(MessagePacker p, int block) throws java.io.IOException;
  }

  private static void assertDecodedPlain(byte[] payload) throws Exception {
    EventBatch b = KvEventDecoder.decode(payload);
    assertThat(b.events()).hasSize(1);
    BlockStored s = (BlockStored) b.events().get(0);
    assertThat(s.blockHashes()).containsExactly(11, 12, 13);
    assertThat(s.tokenIds()).hasSize(12).startsWith(100, 101, 151655);
    assertThat(s.blockSize()).isEqualTo(4);
    assertThat(s.cacheSalt()).isNull();
    assertThat(s.loraName()).isNull();
    assertThat(b.skipped().total()).isZero();
  }

  @Test
  void typedMultimodalKeysDecodeAndNameNoSalt() throws Exception {
    assertDecodedPlain(
        event(
            (p, b) -> {
              p.packArrayHeader(1).packMapHeader(4);
              p.packString("type").packString("mm");
              p.packString("modality").packString("image");
              p.packString("hash").packString(MM_HASH);
              p.packString("block_offset").packInt(b == 0 ? 2 : 2 - 4 * b);
            }));
  }

  @Test
  void typedMultimodalKeysWithABinaryHashAndExtraFieldsDecode() throws Exception {
    assertDecodedPlain(
        event(
            (p, b) -> {
              p.packArrayHeader(1).packMapHeader(4);
              p.packString("type").packString("mm");
              p.packString("hash").packBinaryHeader(32).writePayload(new byte[32]);
              p.packString("block_offset").packLong(-4L * b);
              p.packString("uuid").packString("client-image-7");
            }));
  }

  @Test
  void untaggedIdentifierOffsetPairsAsVllm033SendsThemDecode() throws Exception {
    assertDecodedPlain(
        event(
            (p, b) -> {
              p.packArrayHeader(1).packArrayHeader(2);
              p.packString(MM_HASH).packInt(b == 0 ? 2 : 2 - 4 * b);
            }));
  }

  @Test
  void aClientUuidAsTheIdentifierIsNoSaltEither() throws Exception {
    // vLLM uses a request's multi_modal_uuids as the identifier when the client sends one.
    assertDecodedPlain(
        event(
            (p, b) -> {
              p.packArrayHeader(1).packArrayHeader(2);
              p.packString("client-image-7").packInt(-4 * b);
            }));
  }
}
