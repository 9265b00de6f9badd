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
 * field name with a {@code type} tag (unknown keys ignored). ATOM's extensions are read too: an
 * {@code AllBlocksCleared} naming one tier, and {@code BlockTransferred} as a removal from its
 * source tier. One event drops only itself: an event of an unknown type, an offload placeholder or
 * an event that does not decode (while its bytes are still well-formed msgpack) is skipped and
 * counted in {@link EventBatch#skipped()}, the rest of the batch is kept. A batch whose structure
 * is broken is an {@link EventDecodeException} naming the event and field; nothing else escapes.
 * Stateless and thread-safe.
 */
public final class KvEventDecoder {

  private static final String STORED = "BlockStored";
  private static final String REMOVED = "BlockRemoved";
  private static final String CLEARED = "AllBlocksCleared";

  /** ATOM's tier move (atom/distributed/kv_events.py): read as a removal from its source tier. */
  private static final String TRANSFERRED = "BlockTransferred";

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
    return new EventBatch(ts, events.list, rank, events.skipped);
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
    return new EventBatch(ts, events.list, rank, events.skipped);
  }

  private record Events(List<KvEvent> list, EventBatch.Skipped skipped) {}

  /** Counts of one batch's skipped events; what an event decoder returns null for. */
  private static final class Tally {
    int unknown;
    int placeholder;
    int malformed;
    String firstError;

    EventBatch.Skipped skipped() {
      return unknown == 0 && placeholder == 0 && malformed == 0
          ? EventBatch.Skipped.NONE
          : new EventBatch.Skipped(unknown, placeholder, malformed, firstError);
    }
  }

  private static Events events(MsgpackCursor c) throws EventDecodeException {
    int n = c.arrayHeader("batch.events");
    List<KvEvent> list = new ArrayList<>(n);
    Tally tally = new Tally();
    for (int i = 0; i < n; i++) {
      int start = c.position();
      KvEvent e;
      try {
        e =
            switch (c.peekType("event")) {
              case ARRAY -> arrayEvent(c, tally);
              case MAP -> mapEvent(c, tally);
              default ->
                  throw new EventDecodeException(
                      Kind.WRONG_TYPE,
                      "expected an array or a map, got " + lower(c.peekType("event")));
            };
      } catch (EventDecodeException ex) {
        skipMalformed(c, start, i, ex, tally);
        continue;
      }
      if (e != null) {
        list.add(e);
      }
    }
    return new Events(list, tally.skipped());
  }

  /**
   * One event did not decode: if its bytes are still one well-formed msgpack value, it alone is
   * dropped and decoding goes on after it; otherwise the batch cannot be walked and fails.
   */
  private static void skipMalformed(
      MsgpackCursor c, int start, int index, EventDecodeException ex, Tally tally)
      throws EventDecodeException {
    c.seek(start);
    try {
      c.skip("event");
    } catch (EventDecodeException broken) {
      // The decoder's own error names the field better, when it saw the same breakage.
      EventDecodeException why = broken.kind() == ex.kind() ? ex : broken;
      throw new EventDecodeException(why.kind(), "events[" + index + "]: " + why.getMessage());
    }
    if (tally.malformed++ == 0) {
      tally.firstError = "events[" + index + "]: " + ex.getMessage();
    }
  }

  /**
   * {@code [tag, field1, field2, …]}; returns null for a skipped event (unknown tag, offload
   * placeholder), after consuming it.
   */
  private static KvEvent arrayEvent(MsgpackCursor c, Tally tally) throws EventDecodeException {
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
        int blockSize = c.intInRange("BlockStored.block_size", 0, Integer.MAX_VALUE);
        Long loraId = n > 5 ? c.optInt64("BlockStored.lora_id") : null;
        String medium = n > 6 ? c.optString("BlockStored.medium") : null;
        String loraName = null;
        String metadataSalt = null;
        if (n > 7) {
          // vLLM puts lora_name here; SGLang's salted variant a metadata map {cache_salt: …}.
          Type t = c.peekType("BlockStored.lora_name");
          if (t == Type.MAP) {
            metadataSalt = metadataSalt(c);
          } else {
            loraName = c.optString("BlockStored.lora_name");
          }
        }
        ExtraKeys extra = n > 8 ? extraKeys(c, loraName) : ExtraKeys.NONE;
        Integer group =
            n > 9 ? c.optIntInRange("BlockStored.group_idx", 0, Integer.MAX_VALUE) : null;
        String kind = n > 10 ? c.optString("BlockStored.kv_cache_spec_kind") : null;
        if (n > 11) {
          c.optInt64("BlockStored.kv_cache_spec_sliding_window");
        }
        for (int i = 12; i < n; i++) {
          c.skip("BlockStored");
        }
        return stored(
            tally,
            hashes,
            parent,
            tokens,
            blockSize,
            loraId,
            loraName != null ? loraName : extra.lora,
            medium,
            group,
            kind,
            metadataSalt != null ? metadataSalt : extra.salt);
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
        // ATOM may name the tier it cleared; vLLM and SGLang send the tag alone.
        String medium = n > 1 ? c.optString("AllBlocksCleared.medium") : null;
        for (int i = 2; i < n; i++) {
          c.skip("AllBlocksCleared");
        }
        return new AllBlocksCleared(medium);
      }
      case TRANSFERRED -> {
        if (n < 4) {
          throw new EventDecodeException(
              Kind.INVALID,
              "BlockTransferred has "
                  + n
                  + " fields, needs at least 4 (tag, block_hashes, from_medium, to_medium)");
        }
        long[] hashes = hashes(c, "BlockTransferred.block_hashes");
        String from = c.optString("BlockTransferred.from_medium");
        c.optString("BlockTransferred.to_medium");
        Integer group =
            n > 4 ? c.optIntInRange("BlockTransferred.group_idx", 0, Integer.MAX_VALUE) : null;
        for (int i = 5; i < n; i++) {
          c.skip("BlockTransferred");
        }
        return transferred(hashes, from, group);
      }
      default -> {
        for (int i = 1; i < n; i++) {
          c.skip(tag);
        }
        tally.unknown++;
        return null;
      }
    }
  }

  /** {@code {"type": tag, "block_hashes": …, …}}; returns null for a skipped event. */
  private static KvEvent mapEvent(MsgpackCursor c, Tally tally) throws EventDecodeException {
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
    String topSalt = null;
    int extraKeysAt = -1;
    Integer group = null;
    String kind = null;
    String fromMedium = null;
    for (int i = 0; i < n; i++) {
      String key = key(c, "event");
      switch (key == null ? "" : key) {
        case "type" -> type = c.string("event.type");
        case "block_hashes" -> hashes = hashes(c, "block_hashes");
        case "parent_block_hash" -> parent = c.optHash("parent_block_hash");
        case "token_ids" -> tokens = tokens(c, "token_ids");
        case "block_size" -> blockSize = c.intInRange("block_size", 0, Integer.MAX_VALUE);
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
        // SGLang 0.5.23: the request's salt as a top-level field.
        case "cache_salt" -> topSalt = c.optString("cache_salt");
        case "medium" -> medium = c.optString("medium");
        case "extra_keys" -> {
          // The salt rule needs lora_name, which may come later in the map: remember where.
          extraKeysAt = c.position();
          c.skip("extra_keys");
        }
        case "group_idx" -> group = c.optIntInRange("group_idx", 0, Integer.MAX_VALUE);
        case "kv_cache_spec_kind" -> kind = c.optString("kv_cache_spec_kind");
        case "from_medium" -> fromMedium = c.optString("from_medium");
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
        ExtraKeys extra = extraKeysAt < 0 ? ExtraKeys.NONE : extraKeys(c.at(extraKeysAt), loraName);
        String salt = metadataSalt != null ? metadataSalt : topSalt != null ? topSalt : extra.salt;
        return stored(
            tally,
            hashes,
            parent,
            tokens,
            blockSize,
            loraId,
            loraName != null ? loraName : extra.lora,
            medium,
            group,
            kind,
            salt);
      }
      case REMOVED -> {
        if (hashes == null) {
          throw new EventDecodeException(Kind.INVALID, "BlockRemoved map lacks block_hashes");
        }
        return new BlockRemoved(hashes, medium, group);
      }
      case CLEARED -> {
        return new AllBlocksCleared(medium);
      }
      case TRANSFERRED -> {
        if (hashes == null) {
          throw new EventDecodeException(Kind.INVALID, "BlockTransferred map lacks block_hashes");
        }
        return transferred(hashes, fromMedium, group);
      }
      default -> {
        tally.unknown++;
        return null;
      }
    }
  }

  /**
   * A decoded {@code BlockStored}, or null for an offload placeholder: vLLM's offloading connector
   * announces a lower-tier chunk it has no payload for with no tokens and block size 0.
   */
  private static BlockStored stored(
      Tally tally,
      long[] hashes,
      Long parent,
      int[] tokens,
      int blockSize,
      Long loraId,
      String loraName,
      String medium,
      Integer group,
      String kind,
      String salt)
      throws EventDecodeException {
    if (blockSize == 0) {
      if (tokens.length == 0 && !KvEvent.isDeviceTier(medium)) {
        tally.placeholder++;
        return null;
      }
      throw new EventDecodeException(
          Kind.INVALID,
          "BlockStored.block_size: 0 is outside [1, "
              + Integer.MAX_VALUE
              + "] (only an offload tier's placeholder without tokens may have 0)");
    }
    return new BlockStored(
        hashes, parent, tokens, blockSize, loraId, loraName, medium, group, kind, salt);
  }

  /**
   * ATOM's {@code BlockTransferred}: the blocks left {@code from} (a removal there). Where they
   * went is not learned: the event has no token ids, so a move into the device tier cannot be
   * indexed (ATOM announces blocks it receives with a {@code BlockStored} instead).
   */
  private static BlockRemoved transferred(long[] hashes, String from, Integer group) {
    return new BlockRemoved(hashes, from, group);
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

  /** What a {@code BlockStored}'s extra keys name: its LoRA adapter and its cache salt. */
  private record ExtraKeys(String lora, String salt) {
    static final ExtraKeys NONE = new ExtraKeys(null, null);
  }

  /** Block 0's extra keys, as far as the salt and LoRA rules need them. */
  private static final class BlockKeys {
    String typedSalt;
    String typedLora;
    // Bare strings (and legacy values) in order, and whether the tuple's first element was one.
    final List<String> bare = new ArrayList<>(2);
    boolean firstIsBare;

    /** The bare strings without a leading LoRA name (vLLM puts the adapter's name first). */
    List<String> afterLora(String lora) {
      boolean leading = firstIsBare && lora != null && bare.get(0).equals(lora);
      return leading ? bare.subList(1, bare.size()) : bare;
    }
  }

  /**
   * vLLM's per-block {@code extra_keys} (docs/contracts.md, "Events"): one entry per block, nil or
   * a list. Tagged keys ({@code {"type": "cache_salt", "salt"}}, {@code {"type": "lora", "name"}},
   * or the tuples {@code ("cache_salt", salt)}, {@code ("lora", name, path)}) name salt and LoRA
   * outright. Untagged, as vLLM 0.33.0 publishes them, block 0's list is the LoRA name (when the
   * event has one), {@code (mm_identifier, offset)} pairs, the salt, prompt-embeds digests: the
   * salt is the last bare string of block 0 after a leading LoRA name that is not repeated in block
   * 1's list (multimodal keys of older releases were bare strings too and repeat; the salt does
   * not).
   */
  private static ExtraKeys extraKeys(MsgpackCursor c, String loraName) throws EventDecodeException {
    if (c.tryNil("extra_keys")) {
      return ExtraKeys.NONE;
    }
    int n = c.arrayHeader("extra_keys");
    if (n == 0) {
      return ExtraKeys.NONE;
    }
    BlockKeys first = blockKeys(c);
    BlockKeys second = n > 1 ? blockKeys(c) : null;
    for (int i = 2; i < n; i++) {
      c.skip("extra_keys");
    }
    if (first.typedSalt != null) {
      return new ExtraKeys(first.typedLora, first.typedSalt);
    }
    String lora = loraName != null ? loraName : first.typedLora;
    List<String> bare = first.afterLora(lora);
    List<String> repeated = second == null ? List.of() : second.afterLora(lora);
    String salt = null;
    for (String s : bare) {
      if (!repeated.contains(s)) {
        salt = s;
      }
    }
    return new ExtraKeys(first.typedLora, salt);
  }

  private static BlockKeys blockKeys(MsgpackCursor c) throws EventDecodeException {
    BlockKeys keys = new BlockKeys();
    if (c.tryNil("extra_keys")) {
      return keys;
    }
    int m = c.arrayHeader("extra_keys");
    for (int j = 0; j < m; j++) {
      switch (c.peekType("extra_keys")) {
        case STRING -> {
          keys.bare.add(c.string("extra_keys"));
          if (j == 0) {
            keys.firstIsBare = true;
          }
        }
        case MAP -> typedKey(c, keys);
        case ARRAY -> taggedTuple(c, keys);
        default -> c.skip("extra_keys");
      }
    }
    return keys;
  }

  /** {@code {"type": "cache_salt" | "lora" | "legacy" | "mm" | "prompt_embeds", …}}. */
  private static void typedKey(MsgpackCursor c, BlockKeys keys) throws EventDecodeException {
    int n = c.mapHeader("extra_keys");
    String type = null;
    String salt = null;
    String name = null;
    String value = null;
    for (int i = 0; i < n; i++) {
      String key = key(c, "extra_keys");
      String field = "extra_keys." + (key == null ? "key" : key);
      boolean isString = c.peekType(field) == Type.STRING;
      switch (key == null || !isString ? "" : key) {
        case "type" -> type = c.string(field);
        case "salt" -> salt = c.string(field);
        case "name" -> name = c.string(field);
        case "value" -> value = c.string(field);
        default -> c.skip(field);
      }
    }
    if (type == null) {
      return;
    }
    switch (type) {
      case "cache_salt" -> keys.typedSalt = salt;
      case "lora" -> keys.typedLora = name;
      case "legacy" -> {
        if (value != null) {
          keys.bare.add(value);
        }
      }
      default -> {
        // mm, prompt_embeds and kinds added later do not change the router's hash.
      }
    }
  }

  /** A tuple: tagged {@code ("cache_salt", salt)} / {@code ("lora", name, path?)}, or anything. */
  private static void taggedTuple(MsgpackCursor c, BlockKeys keys) throws EventDecodeException {
    int m = c.arrayHeader("extra_keys");
    int read = 0;
    if (m >= 2 && c.peekType("extra_keys") == Type.STRING) {
      String tag = c.string("extra_keys");
      read = 1;
      boolean salt = "cache_salt".equals(tag) && m == 2;
      boolean lora = "lora".equals(tag) && m <= 3;
      // An untagged (mm_identifier, offset) pair has an integer second element: never a match.
      if ((salt || lora) && c.peekType("extra_keys") == Type.STRING) {
        String value = c.string("extra_keys");
        read = 2;
        if (salt) {
          keys.typedSalt = value;
        } else {
          keys.typedLora = value;
        }
      }
    }
    for (int j = read; j < m; j++) {
      c.skip("extra_keys");
    }
  }

  private static String lower(Type t) {
    return t.name().toLowerCase(java.util.Locale.ROOT);
  }
}
