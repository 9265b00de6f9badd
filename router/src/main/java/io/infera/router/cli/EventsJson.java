package io.infera.router.cli;

import io.infera.router.json.Json;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEvent.AllBlocksCleared;
import io.infera.router.kv.KvEvent.BlockRemoved;
import io.infera.router.kv.KvEvent.BlockStored;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The {@code events decode} output: one JSON object per event, keys in a fixed order. */
public final class EventsJson {

  private EventsJson() {}

  /** One event as one line of JSON; {@code rank} is the batch's dp rank (0 when absent). */
  public static String line(KvEvent e, int rank) {
    Map<String, Object> o = new LinkedHashMap<>();
    if (e instanceof BlockStored s) {
      o.put("type", "BlockStored");
      o.put("dp_rank", rank);
      o.put("block_hashes", hex(s.blockHashes()));
      o.put(
          "parent_block_hash",
          s.parentBlockHash() == null ? null : BlockHasher.hex(s.parentBlockHash()));
      List<Long> tokens = new ArrayList<>(s.tokenIds().length);
      for (int t : s.tokenIds()) {
        tokens.add(Integer.toUnsignedLong(t));
      }
      o.put("token_ids", tokens);
      o.put("block_size", s.blockSize());
      o.put("lora_id", s.loraId());
      o.put("lora_name", s.loraName());
      o.put("cache_salt", s.cacheSalt());
      o.put("medium", s.medium());
      o.put("group_idx", s.groupIdx());
      o.put("kv_cache_spec_kind", s.kvCacheSpecKind());
    } else if (e instanceof BlockRemoved r) {
      o.put("type", "BlockRemoved");
      o.put("dp_rank", rank);
      o.put("block_hashes", hex(r.blockHashes()));
      o.put("medium", r.medium());
    } else if (e instanceof AllBlocksCleared c) {
      o.put("type", "AllBlocksCleared");
      if (c.medium() != null) {
        o.put("medium", c.medium());
      }
      o.put("dp_rank", rank);
    }
    return Json.write(o);
  }

  private static List<String> hex(long[] hashes) {
    List<String> out = new ArrayList<>(hashes.length);
    for (long h : hashes) {
      out.add(BlockHasher.hex(h));
    }
    return out;
  }
}
