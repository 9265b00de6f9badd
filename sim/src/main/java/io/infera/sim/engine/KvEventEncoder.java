package io.infera.sim.engine;

import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEvent.AllBlocksCleared;
import io.infera.router.kv.KvEvent.BlockRemoved;
import io.infera.router.kv.KvEvent.BlockStored;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;

/**
 * Encodes one step's KV events as the msgpack batch payload a real engine sends (docs/contracts.md,
 * "KV-event wire formats"), in the shape of a {@link Flavor}:
 *
 * <ul>
 *   <li>{@code VLLM} (vLLM 0.33.0's msgspec encoding): {@code [ts, [events], dp_rank]}, events
 *       {@code {"type": "BlockStored", block_hashes, parent_block_hash, token_ids, block_size,
 *       lora_id, medium, lora_name, extra_keys?, group_idx, kv_cache_spec_kind}} with {@code
 *       extra_keys} only when a block has keys (untagged: the LoRA name on every block, the salt on
 *       the chain's first), {@code {"type": "BlockRemoved", block_hashes, medium, group_idx}},
 *       {@code {"type": "AllBlocksCleared"}};
 *   <li>{@code VLLM_ARRAY}: {@code [ts, [events], dp_rank]}, events {@code ["BlockStored", hashes,
 *       parent, token_ids, block_size, lora_id, medium, lora_name]}, {@code ["BlockRemoved",
 *       hashes, medium]}, {@code ["AllBlocksCleared"]};
 *   <li>{@code VLLM_MAP}: {@code {ts, events, data_parallel_rank}} with map events carrying every
 *       key, absent values as nil;
 *   <li>{@code SGLANG} (SGLang 0.5.23): array batch of map events, one per page (its radix cache
 *       emits per page), stores {@code {"type", block_hashes: [hash], parent_block_hash, token_ids,
 *       block_size, lora_id, medium, cache_salt?, lora_name?}}, removes {@code {"type",
 *       block_hashes: [hash], medium}}.
 * </ul>
 *
 * <p>Hashes go out as msgpack integers, unsigned: values at or above 2^63 become uint64, as Python
 * ints do. Stateless and thread-safe.
 */
public final class KvEventEncoder {

  private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

  private KvEventEncoder() {}

  /**
   * @param ts seconds since the epoch
   * @param events the step's events in order (engine hashes)
   * @param dpRank the publishing rank
   */
  public static byte[] encode(Flavor flavor, double ts, List<KvEvent> events, int dpRank) {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      switch (flavor) {
        case VLLM -> {
          p.packArrayHeader(3).packDouble(ts).packArrayHeader(events.size());
          for (KvEvent e : events) {
            vllmEvent(p, e);
          }
          p.packInt(dpRank);
        }
        case VLLM_ARRAY -> {
          p.packArrayHeader(3).packDouble(ts).packArrayHeader(events.size());
          for (KvEvent e : events) {
            vllmArrayEvent(p, e);
          }
          p.packInt(dpRank);
        }
        case VLLM_MAP -> {
          p.packMapHeader(3);
          p.packString("ts").packDouble(ts);
          p.packString("events").packArrayHeader(events.size());
          for (KvEvent e : events) {
            vllmMapEvent(p, e);
          }
          p.packString("data_parallel_rank").packInt(dpRank);
        }
        case SGLANG -> {
          List<KvEvent> pages = perPage(events);
          p.packArrayHeader(3).packDouble(ts).packArrayHeader(pages.size());
          for (KvEvent e : pages) {
            sglangEvent(p, e);
          }
          p.packInt(dpRank);
        }
      }
      return p.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Splits multi-block events into one event per block, chaining parents, as SGLang sends. */
  static List<KvEvent> perPage(List<KvEvent> events) {
    List<KvEvent> out = new ArrayList<>(events.size());
    for (KvEvent e : events) {
      if (e instanceof BlockStored s && s.blockHashes().length > 1) {
        Long parent = s.parentBlockHash();
        int bs = s.blockSize();
        for (int i = 0; i < s.blockHashes().length; i++) {
          long h = s.blockHashes()[i];
          int[] tokens = Arrays.copyOfRange(s.tokenIds(), i * bs, (i + 1) * bs);
          out.add(
              new BlockStored(
                  new long[] {h},
                  parent,
                  tokens,
                  bs,
                  s.loraId(),
                  s.loraName(),
                  s.medium(),
                  s.groupIdx(),
                  s.kvCacheSpecKind(),
                  s.cacheSalt()));
          parent = h;
        }
      } else if (e instanceof BlockRemoved r && r.blockHashes().length > 1) {
        for (long h : r.blockHashes()) {
          out.add(new BlockRemoved(new long[] {h}, r.medium(), r.groupIdx()));
        }
      } else {
        out.add(e);
      }
    }
    return out;
  }

  /** vLLM 0.33.0: msgspec's tagged struct with omit_defaults (nil-defaulted fields left out). */
  private static void vllmEvent(MessagePacker p, KvEvent e) throws IOException {
    if (e instanceof BlockStored s) {
      boolean extra =
          s.loraName() != null || (s.cacheSalt() != null && s.parentBlockHash() == null);
      p.packMapHeader(extra ? 11 : 10);
      p.packString("type").packString("BlockStored");
      p.packString("block_hashes");
      hashes(p, s.blockHashes());
      p.packString("parent_block_hash");
      optHash(p, s.parentBlockHash());
      p.packString("token_ids");
      tokens(p, s.tokenIds());
      p.packString("block_size").packInt(s.blockSize());
      p.packString("lora_id");
      optLong(p, s.loraId());
      p.packString("medium").packString(medium(s.medium()));
      p.packString("lora_name");
      optString(p, s.loraName());
      if (extra) {
        p.packString("extra_keys");
        extraKeys(p, s);
      }
      p.packString("group_idx").packInt(s.groupIdx() == null ? 0 : s.groupIdx());
      p.packString("kv_cache_spec_kind");
      p.packString(s.kvCacheSpecKind() == null ? "full_attention" : s.kvCacheSpecKind());
    } else {
      vllmMapRemoval(p, e);
    }
  }

  /** A vLLM map event that is not a store: BlockRemoved or AllBlocksCleared. */
  private static void vllmMapRemoval(MessagePacker p, KvEvent e) throws IOException {
    if (e instanceof BlockRemoved r) {
      p.packMapHeader(4);
      p.packString("type").packString("BlockRemoved");
      p.packString("block_hashes");
      hashes(p, r.blockHashes());
      p.packString("medium").packString(medium(r.medium()));
      p.packString("group_idx").packInt(r.groupIdx() == null ? 0 : r.groupIdx());
    } else if (e instanceof AllBlocksCleared) {
      p.packMapHeader(1);
      p.packString("type").packString("AllBlocksCleared");
    }
  }

  /**
   * vLLM's untagged per-block extra keys: every block's tuple starts with the LoRA name; the
   * request's first block (a chain root here) also carries the salt; a block without keys is nil.
   */
  private static void extraKeys(MessagePacker p, BlockStored s) throws IOException {
    int blocks = s.blockHashes().length;
    p.packArrayHeader(blocks);
    for (int b = 0; b < blocks; b++) {
      boolean salt = b == 0 && s.parentBlockHash() == null && s.cacheSalt() != null;
      int n = (s.loraName() != null ? 1 : 0) + (salt ? 1 : 0);
      if (n == 0) {
        p.packNil();
        continue;
      }
      p.packArrayHeader(n);
      if (s.loraName() != null) {
        p.packString(s.loraName());
      }
      if (salt) {
        p.packString(s.cacheSalt());
      }
    }
  }

  private static void vllmArrayEvent(MessagePacker p, KvEvent e) throws IOException {
    if (e instanceof BlockStored s) {
      p.packArrayHeader(8).packString("BlockStored");
      hashes(p, s.blockHashes());
      optHash(p, s.parentBlockHash());
      tokens(p, s.tokenIds());
      p.packInt(s.blockSize());
      optLong(p, s.loraId());
      p.packString(medium(s.medium()));
      optString(p, s.loraName());
    } else if (e instanceof BlockRemoved r) {
      p.packArrayHeader(3).packString("BlockRemoved");
      hashes(p, r.blockHashes());
      p.packString(medium(r.medium()));
    } else if (e instanceof AllBlocksCleared) {
      p.packArrayHeader(1).packString("AllBlocksCleared");
    }
  }

  private static void vllmMapEvent(MessagePacker p, KvEvent e) throws IOException {
    if (e instanceof BlockStored s) {
      p.packMapHeader(12);
      p.packString("type").packString("BlockStored");
      p.packString("block_hashes");
      hashes(p, s.blockHashes());
      p.packString("parent_block_hash");
      optHash(p, s.parentBlockHash());
      p.packString("token_ids");
      tokens(p, s.tokenIds());
      p.packString("block_size").packInt(s.blockSize());
      p.packString("lora_id");
      optLong(p, s.loraId());
      p.packString("medium").packString(medium(s.medium()));
      p.packString("lora_name");
      optString(p, s.loraName());
      p.packString("extra_keys");
      if (s.loraName() != null || (s.cacheSalt() != null && s.parentBlockHash() == null)) {
        extraKeys(p, s);
      } else {
        p.packNil();
      }
      p.packString("group_idx").packInt(s.groupIdx() == null ? 0 : s.groupIdx());
      p.packString("kv_cache_spec_kind");
      p.packString(s.kvCacheSpecKind() == null ? "full_attention" : s.kvCacheSpecKind());
      p.packString("kv_cache_spec_sliding_window").packNil();
    } else {
      vllmMapRemoval(p, e);
    }
  }

  /** SGLang 0.5.23: omit_defaults drops a nil cache_salt, session_id and lora_name. */
  private static void sglangEvent(MessagePacker p, KvEvent e) throws IOException {
    if (e instanceof BlockStored s) {
      int n = 7 + (s.cacheSalt() != null ? 1 : 0) + (s.loraName() != null ? 1 : 0);
      p.packMapHeader(n);
      p.packString("type").packString("BlockStored");
      p.packString("block_hashes");
      hashes(p, s.blockHashes());
      p.packString("parent_block_hash");
      optHash(p, s.parentBlockHash());
      p.packString("token_ids");
      tokens(p, s.tokenIds());
      p.packString("block_size").packInt(s.blockSize());
      // SGLang never sets the deprecated numeric id (lora_id=None); a name identifies the adapter.
      p.packString("lora_id").packNil();
      p.packString("medium").packString(medium(s.medium()));
      if (s.cacheSalt() != null) {
        p.packString("cache_salt").packString(s.cacheSalt());
      }
      if (s.loraName() != null) {
        p.packString("lora_name").packString(s.loraName());
      }
    } else if (e instanceof BlockRemoved r) {
      p.packMapHeader(3);
      p.packString("type").packString("BlockRemoved");
      p.packString("block_hashes");
      hashes(p, r.blockHashes());
      p.packString("medium").packString(medium(r.medium()));
    } else if (e instanceof AllBlocksCleared) {
      p.packMapHeader(1);
      p.packString("type").packString("AllBlocksCleared");
    }
  }

  private static String medium(String m) {
    return m == null ? KvEvent.MEDIUM_GPU : m;
  }

  private static void hashes(MessagePacker p, long[] hashes) throws IOException {
    p.packArrayHeader(hashes.length);
    for (long h : hashes) {
      u64(p, h);
    }
  }

  private static void tokens(MessagePacker p, int[] tokens) throws IOException {
    p.packArrayHeader(tokens.length);
    for (int t : tokens) {
      p.packInt(t);
    }
  }

  private static void optHash(MessagePacker p, Long h) throws IOException {
    if (h == null) {
      p.packNil();
    } else {
      u64(p, h);
    }
  }

  private static void optLong(MessagePacker p, Long v) throws IOException {
    if (v == null) {
      p.packNil();
    } else {
      p.packLong(v);
    }
  }

  private static void optString(MessagePacker p, String s) throws IOException {
    if (s == null) {
      p.packNil();
    } else {
      p.packString(s);
    }
  }

  /** An unsigned 64-bit hash: negative longs are the values at or above 2^63. */
  private static void u64(MessagePacker p, long v) throws IOException {
    if (v >= 0) {
      p.packLong(v);
    } else {
      p.packBigInteger(BigInteger.valueOf(v).add(TWO_64));
    }
  }
}
