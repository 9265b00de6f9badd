package io.infera.router.cli;

import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEvent.AllBlocksCleared;
import io.infera.router.kv.KvEvent.BlockRemoved;
import io.infera.router.kv.KvEvent.BlockStored;

/** The {@code events decode} output: one JSON object per event, keys in a fixed order. */
public final class EventsJson {

  private EventsJson() {}

  /** One event as one line of JSON; {@code rank} is the batch's dp rank (0 when absent). */
  public static String line(KvEvent e, int rank) {
    Json j = new Json();
    if (e instanceof BlockStored s) {
      j.field("type", "BlockStored")
          .field("dp_rank", rank)
          .hashes("block_hashes", s.blockHashes())
          .field("parent_block_hash", hexOrNull(s.parentBlockHash()))
          .ints("token_ids", s.tokenIds())
          .field("block_size", s.blockSize())
          .field("lora_id", s.loraId())
          .field("lora_name", s.loraName())
          .field("medium", s.medium())
          .field("group_idx", s.groupIdx())
          .field("kv_cache_spec_kind", s.kvCacheSpecKind());
    } else if (e instanceof BlockRemoved r) {
      j.field("type", "BlockRemoved")
          .field("dp_rank", rank)
          .hashes("block_hashes", r.blockHashes())
          .field("medium", r.medium());
    } else if (e instanceof AllBlocksCleared) {
      j.field("type", "AllBlocksCleared").field("dp_rank", rank);
    }
    return j.end();
  }

  private static String hexOrNull(Long h) {
    return h == null ? null : BlockHasher.hex(h);
  }
}
