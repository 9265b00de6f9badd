package io.infera.router.kv;

import java.io.IOException;
import java.util.Arrays;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * One source's view at a point of the event stream: what a relay writes to the snapshot bucket and
 * what a starting router seeds its index with (docs/contracts.md, "NATS event plane").
 *
 * <p>It holds (engine hash, router hash) pairs, not router hashes alone: later {@code BlockRemoved}
 * events name engine hashes, and later {@code BlockStored} events chain from an engine parent hash,
 * so a seeded view must resolve both. A pair appears once per reference (an engine hash stored
 * twice appears twice). Pairs are sorted by router hash, then engine hash.
 *
 * <p>Wire form (msgpack map): {@code {"v": 1, "block_size": int, "engine_seq": int|nil,
 * "stream_seq": uint, "router": [u64…], "engine": [u64…]}} with {@code router[i]} the router hash
 * of {@code engine[i]}.
 *
 * @param blockSize the block size the view's router hashes were chained at: the source's own (an
 *     attention backend may have forced it away from the page size); seeding a non-empty snapshot
 *     sets the source's size to it
 * @param engineSeq the last engine batch sequence included, or {@link KvEventMessage#NO_SEQ}
 * @param streamSeq the last JetStream sequence included (the watermark; 0 = none)
 */
public record ViewSnapshot(
    int blockSize, long engineSeq, long streamSeq, long[] routerHashes, long[] engineHashes) {

  public static final int VERSION = 1;

  /** Longest view accepted from the wire: 64 M pairs (1 GiB of hashes). */
  public static final int MAX_PAIRS = 1 << 26;

  public ViewSnapshot {
    if (routerHashes.length != engineHashes.length) {
      throw new IllegalArgumentException("router and engine hash counts differ");
    }
    if (blockSize < 1) {
      throw new IllegalArgumentException("blockSize must be >= 1");
    }
    if (streamSeq < 0) {
      throw new IllegalArgumentException("streamSeq must be >= 0");
    }
  }

  /** Pairs sorted by router hash, then engine hash (unsigned order). */
  public static ViewSnapshot of(
      int blockSize, long engineSeq, long streamSeq, long[] routerHashes, long[] engineHashes) {
    int n = routerHashes.length;
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(
        order,
        (a, b) -> {
          int c = Long.compareUnsigned(routerHashes[a], routerHashes[b]);
          return c != 0 ? c : Long.compareUnsigned(engineHashes[a], engineHashes[b]);
        });
    long[] r = new long[n];
    long[] e = new long[n];
    for (int i = 0; i < n; i++) {
      r[i] = routerHashes[order[i]];
      e[i] = engineHashes[order[i]];
    }
    return new ViewSnapshot(blockSize, engineSeq, streamSeq, r, e);
  }

  public int size() {
    return routerHashes.length;
  }

  /** The same view at another stream watermark. */
  public ViewSnapshot withStreamSeq(long seq) {
    return new ViewSnapshot(blockSize, engineSeq, seq, routerHashes, engineHashes);
  }

  public byte[] encode() {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packMapHeader(6);
      p.packString("v").packInt(VERSION);
      p.packString("block_size").packInt(blockSize);
      p.packString("engine_seq");
      if (engineSeq == KvEventMessage.NO_SEQ) {
        p.packNil();
      } else {
        p.packLong(engineSeq);
      }
      p.packString("stream_seq").packLong(streamSeq);
      packU64s(p, "router", routerHashes);
      packU64s(p, "engine", engineHashes);
      return p.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException("msgpack to memory failed", e);
    }
  }

  private static void packU64s(MessageBufferPacker p, String key, long[] values)
      throws IOException {
    p.packString(key).packArrayHeader(values.length);
    byte[] u64 = new byte[9];
    u64[0] = (byte) 0xcf; // msgpack uint 64, big-endian
    for (long v : values) {
      if (v < 0) {
        // Above Long.MAX_VALUE as unsigned: the uint 64 format byte by byte (packBigInteger
        // would parse a decimal string per value).
        for (int b = 0; b < 8; b++) {
          u64[1 + b] = (byte) (v >>> (56 - 8 * b));
        }
        p.writePayload(u64);
      } else {
        p.packLong(v);
      }
    }
  }

  /**
   * Decodes a snapshot; unknown keys are skipped.
   *
   * @throws EventDecodeException naming what was wrong (never an unchecked exception or a huge
   *     allocation)
   */
  public static ViewSnapshot decode(byte[] bytes) throws EventDecodeException {
    if (bytes == null || bytes.length == 0) {
      throw new EventDecodeException(EventDecodeException.Kind.EMPTY, "empty snapshot");
    }
    MsgpackCursor c = new MsgpackCursor(bytes);
    int fields = c.mapHeader("snapshot");
    Integer version = null;
    Integer blockSize = null;
    long engineSeq = KvEventMessage.NO_SEQ;
    Long streamSeq = null;
    long[] router = null;
    long[] engine = null;
    for (int i = 0; i < fields; i++) {
      String key = c.string("snapshot key");
      switch (key) {
        case "v" -> version = c.intInRange("v", 0, Integer.MAX_VALUE);
        case "block_size" -> blockSize = c.intInRange("block_size", 1, 1 << 20);
        case "engine_seq" -> {
          Long s = c.optInt64("engine_seq");
          engineSeq = s == null ? KvEventMessage.NO_SEQ : s;
        }
        case "stream_seq" -> streamSeq = c.int64("stream_seq");
        case "router" -> router = hashes(c, "router");
        case "engine" -> engine = hashes(c, "engine");
        default -> c.skip(key);
      }
    }
    if (c.remaining() != 0) {
      throw new EventDecodeException(
          EventDecodeException.Kind.TRAILING_BYTES, c.remaining() + " bytes after the snapshot");
    }
    if (version == null || version != VERSION) {
      throw invalid("snapshot version " + version + " is not " + VERSION);
    }
    if (blockSize == null || streamSeq == null || router == null || engine == null) {
      throw invalid("snapshot lacks block_size, stream_seq, router or engine");
    }
    if (streamSeq < 0) {
      throw invalid("stream_seq is negative");
    }
    if (router.length != engine.length) {
      throw invalid(
          "snapshot has " + router.length + " router and " + engine.length + " engine hashes");
    }
    return new ViewSnapshot(blockSize, engineSeq, streamSeq, router, engine);
  }

  private static long[] hashes(MsgpackCursor c, String field) throws EventDecodeException {
    int n = c.arrayHeader(field);
    if (n > MAX_PAIRS || n > c.remaining()) {
      throw new EventDecodeException(
          EventDecodeException.Kind.OVERSIZED, field + " announces " + n + " hashes");
    }
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = c.hash(field);
    }
    return out;
  }

  private static EventDecodeException invalid(String message) {
    return new EventDecodeException(EventDecodeException.Kind.INVALID, message);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ViewSnapshot s
        && blockSize == s.blockSize
        && engineSeq == s.engineSeq
        && streamSeq == s.streamSeq
        && Arrays.equals(routerHashes, s.routerHashes)
        && Arrays.equals(engineHashes, s.engineHashes);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(routerHashes) + Long.hashCode(streamSeq);
  }

  @Override
  public String toString() {
    return "ViewSnapshot[pairs="
        + routerHashes.length
        + ", blockSize="
        + blockSize
        + ", engineSeq="
        + engineSeq
        + ", streamSeq="
        + streamSeq
        + "]";
  }
}
