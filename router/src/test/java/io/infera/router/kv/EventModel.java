package io.infera.router.kv;

import io.infera.router.kv.KvEvent.AllBlocksCleared;
import io.infera.router.kv.KvEvent.BlockRemoved;
import io.infera.router.kv.KvEvent.BlockStored;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;

/**
 * Random valid KV-event batches and an independent msgpack encoder for them, in every shape the
 * decoder accepts (array/map batches and events, trailing fields cut, int/bytes hashes, bigrams).
 */
public final class EventModel {

  private EventModel() {}

  /** A batch plus the wire choices made for it. */
  public record Sample(EventBatch batch, byte[] payload) {}

  private static final String[] MEDIA = {null, "GPU", "CPU", "DISK"};
  private static final String[] KINDS = {null, "full_attention", "sliding_window", "mla_attention"};
  private static final String[] NAMES = {null, "sql-lora", "adapter-ü", ""};

  public static Sample random(Random r) {
    int n = r.nextInt(6);
    List<KvEvent> events = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      events.add(randomEvent(r));
    }
    Integer rank = r.nextBoolean() ? null : r.nextInt(8);
    EventBatch batch = new EventBatch(r.nextInt(1 << 20) / 4.0, events, rank, 0);
    return new Sample(batch, encode(batch, r));
  }

  static KvEvent randomEvent(Random r) {
    switch (r.nextInt(5)) {
      case 0, 1, 2 -> {
        int blocks = 1 + r.nextInt(4);
        int size = 1 + r.nextInt(8);
        long[] hashes = r.longs(blocks).toArray();
        int[] tokens = r.ints(blocks * size, 0, 1 << 20).toArray();
        String salt = r.nextInt(4) == 0 ? "salt-" + r.nextInt(100) : null;
        String lora = salt != null ? null : NAMES[r.nextInt(NAMES.length)];
        return new BlockStored(
            hashes,
            r.nextBoolean() ? null : r.nextLong(),
            tokens,
            size,
            r.nextBoolean() ? null : (long) r.nextInt(100),
            lora,
            MEDIA[r.nextInt(MEDIA.length)],
            r.nextBoolean() ? null : r.nextInt(3),
            KINDS[r.nextInt(KINDS.length)],
            salt);
      }
      case 3 -> {
        return new BlockRemoved(
            r.longs(1 + r.nextInt(4)).toArray(),
            MEDIA[r.nextInt(MEDIA.length)],
            r.nextBoolean() ? null : r.nextInt(3));
      }
      default -> {
        return new AllBlocksCleared();
      }
    }
  }

  public static byte[] encode(EventBatch batch, Random r) {
    return encode(batch, r, 0, 0);
  }

  /** Well-formed msgpack events the decoder must drop one by one (each a malformed_event). */
  private static final PackBody[] POISON = {
    p -> {
      p.packArrayHeader(5).packString("BlockStored").packArrayHeader(1).packString("abc");
      p.packNil().packArrayHeader(1).packInt(1).packInt(1);
    },
    p -> {
      p.packMapHeader(4).packString("type").packString("BlockStored");
      p.packString("block_hashes").packArrayHeader(1).packInt(1);
      p.packString("token_ids").packArrayHeader(1).packInt(-1);
      p.packString("block_size").packInt(1);
    },
    p -> p.packMapHeader(1).packString("block_hashes").packArrayHeader(1).packInt(1),
    p -> p.packArrayHeader(1).packString("BlockStored"),
    p -> p.packArrayHeader(0),
    p -> p.packString("not an event"),
    p -> p.packMapHeader(1).packString("type").packString("BlockRemoved"),
    p -> {
      p.packMapHeader(5).packString("type").packString("BlockStored");
      p.packString("block_hashes").packArrayHeader(1).packInt(1);
      p.packString("token_ids").packArrayHeader(0);
      p.packString("block_size").packInt(0);
      p.packString("medium").packString("GPU");
    },
    p -> {
      p.packArrayHeader(5).packString("BlockStored").packArrayHeader(1).packInt(1).packNil();
      p.packArrayHeader(1).packArrayHeader(0).packInt(1);
    },
  };

  interface PackBody {
    void write(MessagePacker p) throws IOException;
  }

  /**
   * Encodes {@code batch} with {@code poison} malformed events and {@code placeholders} offload
   * placeholders inserted at random places among its events.
   */
  public static byte[] encode(EventBatch batch, Random r, int poison, int placeholders) {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      Extra extra = new Extra(poison, placeholders);
      if (r.nextBoolean()) {
        boolean withRank = batch.dpRank() != null || r.nextBoolean();
        p.packArrayHeader(withRank ? 3 : 2).packDouble(batch.ts());
        events(p, batch, r, extra);
        if (withRank) {
          value(p, batch.dpRank());
        }
      } else {
        boolean withRank = batch.dpRank() != null || r.nextBoolean();
        p.packMapHeader(withRank ? 3 : 2);
        p.packString("events");
        events(p, batch, r, extra);
        p.packString("ts").packDouble(batch.ts());
        if (withRank) {
          p.packString("data_parallel_rank");
          value(p, batch.dpRank());
        }
      }
      return p.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private record Extra(int poison, int placeholders) {}

  private static void events(MessagePacker p, EventBatch batch, Random r, Extra extra)
      throws IOException {
    // null = a poison event, an Integer = a placeholder: shuffled in among the real ones.
    List<Object> slots = new ArrayList<>(batch.events());
    for (int i = 0; i < extra.poison; i++) {
      slots.add(r.nextInt(slots.size() + 1), null);
    }
    for (int i = 0; i < extra.placeholders; i++) {
      slots.add(r.nextInt(slots.size() + 1), i);
    }
    p.packArrayHeader(slots.size());
    for (Object slot : slots) {
      if (slot == null) {
        POISON[r.nextInt(POISON.length)].write(p);
      } else if (slot instanceof Integer) {
        placeholder(p, r);
      } else if (r.nextBoolean()) {
        arrayEvent(p, (KvEvent) slot, r);
      } else {
        mapEvent(p, (KvEvent) slot, r);
      }
    }
  }

  /** vLLM's offloading placeholder: no tokens, block size 0, a lower tier, locality fields. */
  private static void placeholder(MessagePacker p, Random r) throws IOException {
    p.packMapHeader(11).packString("type").packString("BlockStored");
    p.packString("block_hashes").packArrayHeader(1);
    hash(p, r.nextLong(), r);
    p.packString("parent_block_hash").packNil();
    p.packString("token_ids").packArrayHeader(0);
    p.packString("block_size").packInt(0);
    p.packString("lora_id").packNil();
    p.packString("medium").packString(r.nextBoolean() ? "CPU" : "STORAGE");
    p.packString("lora_name").packNil();
    p.packString("group_idx").packInt(0);
    p.packString("locality").packString("LOCAL");
    p.packString("ownership").packString("tier-" + r.nextInt(3));
  }

  private static void arrayEvent(MessagePacker p, KvEvent e, Random r) throws IOException {
    if (e instanceof BlockStored s) {
      // Fields after block_size, in wire order; the cut keeps every non-null one.
      Object[] tail = {
        s.loraId(),
        s.medium(),
        s.cacheSalt() != null ? (Object) new Salt(s.cacheSalt()) : s.loraName(),
        null,
        s.groupIdx(),
        s.kvCacheSpecKind(),
        null
      };
      int last = -1;
      for (int i = 0; i < tail.length; i++) {
        if (tail[i] != null) {
          last = i;
        }
      }
      int cut = last + 1 + r.nextInt(tail.length - last);
      p.packArrayHeader(5 + cut).packString("BlockStored");
      hashes(p, s.blockHashes(), r);
      if (s.parentBlockHash() == null) {
        p.packNil();
      } else {
        hash(p, s.parentBlockHash(), r);
      }
      tokens(p, s.tokenIds(), r);
      p.packInt(s.blockSize());
      for (int i = 0; i < cut; i++) {
        value(p, tail[i]);
      }
    } else if (e instanceof BlockRemoved rm) {
      Object[] tail = {rm.medium(), rm.groupIdx()};
      int last = rm.groupIdx() != null ? 1 : rm.medium() != null ? 0 : -1;
      int cut = last + 1 + r.nextInt(tail.length - last);
      p.packArrayHeader(2 + cut).packString("BlockRemoved");
      hashes(p, rm.blockHashes(), r);
      for (int i = 0; i < cut; i++) {
        value(p, tail[i]);
      }
    } else {
      p.packArrayHeader(1).packString("AllBlocksCleared");
    }
  }

  private static void mapEvent(MessagePacker p, KvEvent e, Random r) throws IOException {
    if (e instanceof BlockStored s) {
      List<Object[]> fields = new ArrayList<>();
      fields.add(new Object[] {"block_hashes", s.blockHashes()});
      fields.add(new Object[] {"token_ids", s.tokenIds()});
      fields.add(new Object[] {"block_size", s.blockSize()});
      if (s.parentBlockHash() != null || r.nextBoolean()) {
        fields.add(new Object[] {"parent_block_hash", new Hash(s.parentBlockHash())});
      }
      optional(fields, "lora_id", s.loraId(), r);
      optional(fields, "medium", s.medium(), r);
      optional(fields, "lora_name", s.loraName(), r);
      optional(fields, "group_idx", s.groupIdx(), r);
      optional(fields, "kv_cache_spec_kind", s.kvCacheSpecKind(), r);
      if (s.cacheSalt() != null) {
        // Every place an engine puts a salt: SGLang's metadata map and top-level key, vLLM's
        // untagged extra_keys (block 0 only) and the typed form.
        switch (r.nextInt(4)) {
          case 0 -> fields.add(new Object[] {"metadata", new Salt(s.cacheSalt())});
          case 1 -> fields.add(new Object[] {"cache_salt", s.cacheSalt()});
          case 2 -> fields.add(new Object[] {"extra_keys", new BareSalt(s.cacheSalt())});
          default -> fields.add(new Object[] {"extra_keys", new TypedSalt(s.cacheSalt())});
        }
      }
      if (r.nextBoolean()) {
        fields.add(new Object[] {"some_future_key", List.of(1, "x")});
      }
      java.util.Collections.shuffle(fields, r);
      fields.add(r.nextInt(fields.size() + 1), new Object[] {"type", "BlockStored"});
      p.packMapHeader(fields.size());
      for (Object[] f : fields) {
        p.packString((String) f[0]);
        if (f[1] instanceof long[] h) {
          hashes(p, h, r);
        } else if (f[1] instanceof int[] t) {
          tokens(p, t, r);
        } else if (f[1] instanceof Hash h) {
          if (h.value == null) {
            p.packNil();
          } else {
            hash(p, h.value, r);
          }
        } else {
          value(p, f[1]);
        }
      }
    } else if (e instanceof BlockRemoved rm) {
      List<Object[]> fields = new ArrayList<>();
      optional(fields, "medium", rm.medium(), r);
      optional(fields, "group_idx", rm.groupIdx(), r);
      p.packMapHeader(2 + fields.size()).packString("type").packString("BlockRemoved");
      p.packString("block_hashes");
      hashes(p, rm.blockHashes(), r);
      for (Object[] f : fields) {
        p.packString((String) f[0]);
        value(p, f[1]);
      }
    } else {
      p.packMapHeader(1).packString("type").packString("AllBlocksCleared");
    }
  }

  private record Salt(String value) {}

  private record BareSalt(String value) {}

  private record TypedSalt(String value) {}

  private record Hash(Long value) {}

  private static void optional(List<Object[]> fields, String key, Object v, Random r) {
    if (v != null || r.nextBoolean()) {
      fields.add(new Object[] {key, v});
    }
  }

  private static void value(MessagePacker p, Object v) throws IOException {
    if (v == null) {
      p.packNil();
    } else if (v instanceof String s) {
      p.packString(s);
    } else if (v instanceof Integer i) {
      p.packInt(i);
    } else if (v instanceof Long l) {
      p.packLong(l);
    } else if (v instanceof Salt s) {
      p.packMapHeader(2).packString("other").packInt(1);
      p.packString("cache_salt").packString(s.value);
    } else if (v instanceof BareSalt s) {
      // vLLM 0.33.0: block 0 = ((mm id, offset), salt, embeds digest), block 1 = nil.
      p.packArrayHeader(2).packArrayHeader(3);
      p.packArrayHeader(2).packString("img-1").packInt(3);
      p.packString(s.value);
      p.packBinaryHeader(2).writePayload(new byte[] {1, 2});
      p.packNil();
    } else if (v instanceof TypedSalt s) {
      p.packArrayHeader(2).packArrayHeader(2);
      p.packMapHeader(2).packString("type").packString("mm").packString("hash").packString("h");
      p.packMapHeader(2).packString("salt").packString(s.value);
      p.packString("type").packString("cache_salt");
      p.packArrayHeader(1);
      p.packMapHeader(2).packString("type").packString("mm").packString("hash").packString("h");
    } else if (v instanceof List<?> list) {
      p.packArrayHeader(list.size());
      for (Object o : list) {
        value(p, o);
      }
    } else {
      throw new IllegalArgumentException("cannot pack " + v);
    }
  }

  private static void hashes(MessagePacker p, long[] hashes, Random r) throws IOException {
    p.packArrayHeader(hashes.length);
    for (long h : hashes) {
      hash(p, h, r);
    }
  }

  /** A hash as an int (u64 when negative as signed, or i64), or as 8 or 32 bytes. */
  private static void hash(MessagePacker p, long h, Random r) throws IOException {
    switch (r.nextInt(4)) {
      case 0 -> p.packLong(h);
      case 1 -> p.packBigInteger(new java.math.BigInteger(Long.toUnsignedString(h)));
      case 2 -> {
        byte[] b = new byte[32];
        r.nextBytes(b);
        for (int i = 0; i < 8; i++) {
          b[31 - i] = (byte) (h >>> (8 * i));
        }
        p.packBinaryHeader(32).writePayload(b);
      }
      default -> {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
          b[7 - i] = (byte) (h >>> (8 * i));
        }
        p.packBinaryHeader(8).writePayload(b);
      }
    }
  }

  private static void tokens(MessagePacker p, int[] tokens, Random r) throws IOException {
    p.packArrayHeader(tokens.length);
    boolean pairs = r.nextBoolean();
    for (int t : tokens) {
      if (pairs) {
        p.packArrayHeader(2).packLong(Integer.toUnsignedLong(t)).packInt(r.nextInt(1000));
      } else {
        p.packLong(Integer.toUnsignedLong(t));
      }
    }
  }
}
