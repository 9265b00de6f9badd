package io.infera.router.kv;

import io.infera.router.kv.EventDecodeException.Kind;
import io.infera.router.kv.KvEvent.AllBlocksCleared;
import io.infera.router.kv.KvEvent.BlockRemoved;
import io.infera.router.kv.KvEvent.BlockStored;
import io.infera.router.kv.MsgpackCursor.Type;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes one engine KV-event batch payload (msgpack) in every shape engines send
 * (docs/contracts.md, "KV-event wire formats").
 *
 * <p>Batches are arrays {@code [ts, events, dp_rank?]} or maps {@code {ts, events,
 * data_parallel_rank}}; events are tagged arrays with trailing fields optional, or maps keyed by
 * field name with a {@code type} tag (unknown keys ignored). An event of an unknown type is skipped
 * and counted in {@link EventBatch#unknownEvents()}. Anything malformed is an {@link
 * EventDecodeException} naming the event and field; nothing else escapes. Stateless and
 * thread-safe.
 */
public final class KvEventDecoder {

  private static final String STORED = "BlockStored";
  private static final String REMOVED = "BlockRemoved";
  private static final String CLEARED = "AllBlocksCleared";
  private static final int[] NO_TOKENS = new int[0];
  private static final long[] NO_HASHES = new long[0];

  private KvEventDecoder() {}

  /** Decodes a whole payload; trailing bytes after the batch are an error. */
  public static EventBatch decode(byte[] payload) throws EventDecodeException {
    if (payload == null || payload.length == 0) {
      throw new EventDecodeException(Kind.EMPTY, "empty payload");
    }
    MsgpackCursor c = new MsgpackCursor(payload);
    EventBatch batch =
        switch (c.peekType("batch")) {
          case ARRAY -> arrayBatch(c);
          case MAP -> mapBatch(c);
          default ->
              throw new EventDecodeException(
                  Kind.WRONG_TYPE,
                  "batch: expected an array or a map, got " + lower(c.peekType("batch")));
        };
    if (c.remaining() > 0) {
      throw new EventDecodeException(
          Kind.TRAILING_BYTES,
          "batch: " + c.remaining() + " bytes left after the batch at offset " + c.position());
    }
    return batch;
  }

  private static EventBatch arrayBatch(MsgpackCursor c) throws EventDecodeException {
    int n = c.arrayHeader("batch");
    if (n < 2) {
      throw new EventDecodeException(
          Kind.INVALID, "batch: array has " + n + " elements, expected [ts, events, dp_rank?]");
    }
    double ts = c.number("batch.ts");
    Events events = events(c);
    Integer rank = n >= 3 ? c.optIntInRange("batch.dp_rank", 0, Integer.MAX_VALUE) : null;
    for (int i = 3; i < n; i++) {
      c.skip("batch");
    }
    return new EventBatch(ts, events.list, rank, events.unknown);
  }

  private static EventBatch mapBatch(MsgpackCursor c) throws EventDecodeException {
    int n = c.mapHeader("batch");
    double ts = 0;
    Events events = null;
    Integer rank = null;
    for (int i = 0; i < n; i++) {
      String key = key(c, "batch");
      switch (key == null ? "" : key) {
        case "ts" -> ts = c.number("batch.ts");
        case "events" -> events = events(c);
        case "data_parallel_rank" ->
            rank = c.optIntInRange("batch.data_parallel_rank", 0, Integer.MAX_VALUE);
        default -> c.skip("batch." + key);
      }
    }
    if (events == null) {
      throw new EventDecodeException(Kind.INVALID, "batch: map has no \"events\" key");
    }
    return new EventBatch(ts, events.list, rank, events.unknown);
  }

  private record Events(List<KvEvent> list, int unknown) {}

  private static Events events(MsgpackCursor c) throws EventDecodeException {
    int n = c.arrayHeader("batch.events");
    List<KvEvent> list = new ArrayList<>(n);
    int unknown = 0;
    for (int i = 0; i < n; i++) {
      KvEvent e;
      try {
        e =
            switch (c.peekType("event")) {
              case ARRAY -> arrayEvent(c);
              case MAP -> mapEvent(c);
              default ->
                  throw new EventDecodeException(
                      Kind.WRONG_TYPE,
                      "expected an array or a map, got " + lower(c.peekType("event")));
            };
      } catch (EventDecodeException ex) {
        throw new EventDecodeException(ex.kind(), "events[" + i + "]: " + ex.getMessage());
      }
      if (e == null) {
        unknown++;
      } else {
        list.add(e);
      }
    }
    return new Events(list, unknown);
  }

  /** {@code [tag, field1, field2, …]}; returns null for an unknown tag (after skipping it). */
  private static KvEvent arrayEvent(MsgpackCursor c) throws EventDecodeException {
    int n = c.arrayHeader("event");
    if (n == 0) {
      throw new EventDecodeException(Kind.INVALID, "event is an empty array, expected a tag");
    }
    String tag = c.string("event tag");
    switch (tag) {
      case STORED -> {
        if (n < 5) {
          throw new EventDecodeException(
              Kind.INVALID,
              "BlockStored has "
                  + n
                  + " fields, needs at least 5 (tag, block_hashes, parent_block_hash,"
                  + " token_ids, block_size)");
        }
        long[] hashes = hashes(c, "BlockStored.block_hashes");
        Long parent = c.optHash("BlockStored.parent_block_hash");
        int[] tokens = tokens(c, "BlockStored.token_ids");
        int blockSize = c.intInRange("BlockStored.block_size", 1, Integer.MAX_VALUE);
        Long loraId = n > 5 ? c.optInt64("BlockStored.lora_id") : null;
        String medium = n > 6 ? c.optString("BlockStored.medium") : null;
        String loraName = null;
        String salt = null;
        if (n > 7) {
          // vLLM puts lora_name here; SGLang's salted variant a metadata map {cache_salt: …}.
          Type t = c.peekType("BlockStored.lora_name");
          if (t == Type.MAP) {
            salt = metadataSalt(c);
          } else {
            loraName = c.optString("BlockStored.lora_name");
          }
        }
        String extraSalt = n > 8 ? extraKeysSalt(c, loraName) : null;
        Integer group =
            n > 9 ? c.optIntInRange("BlockStored.group_idx", 0, Integer.MAX_VALUE) : null;
        String kind = n > 10 ? c.optString("BlockStored.kv_cache_spec_kind") : null;
        if (n > 11) {
          c.optInt64("BlockStored.kv_cache_spec_sliding_window");
        }
        for (int i = 12; i < n; i++) {
          c.skip("BlockStored");
        }
        return new BlockStored(
            hashes,
            parent,
            tokens,
            blockSize,
            loraId,
            loraName,
            medium,
            group,
            kind,
            salt != null ? salt : extraSalt);
      }
      case REMOVED -> {
        if (n < 2) {
          throw new EventDecodeException(Kind.INVALID, "BlockRemoved has no block_hashes field");
        }
        long[] hashes = hashes(c, "BlockRemoved.block_hashes");
        String medium = n > 2 ? c.optString("BlockRemoved.medium") : null;
        Integer group =
            n > 3 ? c.optIntInRange("BlockRemoved.group_idx", 0, Integer.MAX_VALUE) : null;
        for (int i = 4; i < n; i++) {
          c.skip("BlockRemoved");
        }
        return new BlockRemoved(hashes, medium, group);
      }
      case CLEARED -> {
        for (int i = 1; i < n; i++) {
          c.skip("AllBlocksCleared");
        }
        return new AllBlocksCleared();
      }
      default -> {
        for (int i = 1; i < n; i++) {
          c.skip(tag);
        }
        return null;
      }
    }
  }

  /** {@code {"type": tag, "block_hashes": …, …}}; returns null for an unknown type. */
  private static KvEvent mapEvent(MsgpackCursor c) throws EventDecodeException {
    int n = c.mapHeader("event");
    String type = null;
    long[] hashes = null;
    Long parent = null;
    int[] tokens = null;
    Integer blockSize = null;
    Long loraId = null;
    String loraName = null;
    String medium = null;
    String metadataSalt = null;
    String extraSalt = null;
    boolean extraKeysSeen = false;
    int extraKeysAt = -1;
    Integer group = null;
    String kind = null;
    for (int i = 0; i < n; i++) {
      String key = key(c, "event");
      switch (key == null ? "" : key) {
        case "type" -> type = c.string("event.type");
        case "block_hashes" -> hashes = hashes(c, "block_hashes");
        case "parent_block_hash" -> parent = c.optHash("parent_block_hash");
        case "token_ids" -> tokens = tokens(c, "token_ids");
        case "block_size" -> blockSize = c.intInRange("block_size", 1, Integer.MAX_VALUE);
        case "lora_id" -> loraId = c.optInt64("lora_id");
        case "lora_name" -> {
          if (c.peekType("lora_name") == Type.MAP) {
            metadataSalt = metadataSalt(c);
          } else {
            loraName = c.optString("lora_name");
          }
        }
        case "metadata" -> {
          if (!c.tryNil("metadata")) {
            metadataSalt = metadataSalt(c);
          }
        }
        case "medium" -> medium = c.optString("medium");
        case "extra_keys" -> {
          // The salt rule needs lora_name, which may come later in the map: remember where.
          extraKeysSeen = true;
          extraKeysAt = c.position();
          c.skip("extra_keys");
        }
        case "group_idx" -> group = c.optIntInRange("group_idx", 0, Integer.MAX_VALUE);
        case "kv_cache_spec_kind" -> kind = c.optString("kv_cache_spec_kind");
        default -> c.skip(key == null ? "event key" : key);
      }
    }
    if (type == null) {
      throw new EventDecodeException(Kind.INVALID, "event map has no \"type\" key");
    }
    switch (type) {
      case STORED -> {
        if (hashes == null || tokens == null || blockSize == null) {
          throw new EventDecodeException(
              Kind.INVALID,
              "BlockStored map lacks "
                  + (hashes == null
                      ? "block_hashes"
                      : tokens == null ? "token_ids" : "block_size"));
        }
        if (extraKeysSeen) {
          extraSalt = extraKeysSaltAt(c, extraKeysAt, loraName);
        }
        return new BlockStored(
            hashes,
            parent,
            tokens,
            blockSize,
            loraId,
            loraName,
            medium,
            group,
            kind,
            metadataSalt != null ? metadataSalt : extraSalt);
      }
      case REMOVED -> {
        if (hashes == null) {
          throw new EventDecodeException(Kind.INVALID, "BlockRemoved map lacks block_hashes");
        }
        return new BlockRemoved(hashes, medium, group);
      }
      case CLEARED -> {
        return new AllBlocksCleared();
      }
      default -> {
        return null;
      }
    }
  }

  /** A map key: a string, or null for a key of another type (which is consumed). */
  private static String key(MsgpackCursor c, String field) throws EventDecodeException {
    if (c.peekType(field) == Type.STRING) {
      return c.string(field);
    }
    c.skip(field);
    return null;
  }

  private static long[] hashes(MsgpackCursor c, String field) throws EventDecodeException {
    int n = c.arrayHeader(field);
    if (n == 0) {
      return NO_HASHES;
    }
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = c.hash(field);
    }
    return out;
  }

  /** Flat token ids, or a list of bigram pairs whose first elements are the tokens. */
  private static int[] tokens(MsgpackCursor c, String field) throws EventDecodeException {
    int n = c.arrayHeader(field);
    if (n == 0) {
      return NO_TOKENS;
    }
    int[] out = new int[n];
    if (c.peekType(field) == Type.ARRAY) {
      for (int i = 0; i < n; i++) {
        int m = c.arrayHeader(field + " pair");
        if (m == 0) {
          throw new EventDecodeException(Kind.INVALID, field + ": empty token pair at " + i);
        }
        out[i] = c.token(field);
        for (int j = 1; j < m; j++) {
          c.skip(field);
        }
      }
    } else {
      for (int i = 0; i < n; i++) {
        out[i] = c.token(field);
      }
    }
    return out;
  }

  /** SGLang's {@code {cache_salt: …}} metadata map; other keys ignored. */
  private static String metadataSalt(MsgpackCursor c) throws EventDecodeException {
    int n = c.mapHeader("metadata");
    String salt = null;
    for (int i = 0; i < n; i++) {
      String key = key(c, "metadata");
      if ("cache_salt".equals(key)) {
        salt = c.optString("metadata.cache_salt");
      } else {
        c.skip("metadata");
      }
    }
    return salt;
  }

  private static String extraKeysSaltAt(MsgpackCursor outer, int at, String loraName)
      throws EventDecodeException {
    MsgpackCursor c = outer.at(at);
    return extraKeysSalt(c, loraName);
  }

  /**
   * vLLM's per-block {@code extra_keys}: block 0's tuple carries the LoRA name, multimodal ids and
   * the cache salt. The salt is the last string of block 0's tuple that is neither the LoRA name
   * nor repeated in block 1's tuple (LoRA and multimodal keys repeat; the salt is only on block 0).
   */
  private static String extraKeysSalt(MsgpackCursor c, String loraName)
      throws EventDecodeException {
    if (c.tryNil("extra_keys")) {
      return null;
    }
    int n = c.arrayHeader("extra_keys");
    List<String> first = List.of();
    List<String> second = List.of();
    for (int i = 0; i < n; i++) {
      if (i < 2) {
        List<String> strings = tupleStrings(c);
        if (i == 0) {
          first = strings;
        } else {
          second = strings;
        }
      } else {
        c.skip("extra_keys");
      }
    }
    String salt = null;
    for (String s : first) {
      if (!s.equals(loraName) && !second.contains(s)) {
        salt = s;
      }
    }
    return salt;
  }

  private static List<String> tupleStrings(MsgpackCursor c) throws EventDecodeException {
    if (c.tryNil("extra_keys")) {
      return List.of();
    }
    int m = c.arrayHeader("extra_keys");
    List<String> out = new ArrayList<>(Math.min(m, 8));
    for (int j = 0; j < m; j++) {
      if (c.peekType("extra_keys") == Type.STRING) {
        out.add(c.string("extra_keys"));
      } else {
        c.skip("extra_keys");
      }
    }
    return out;
  }

  private static String lower(Type t) {
    return t.name().toLowerCase(java.util.Locale.ROOT);
  }
}
