package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.infera.router.nats.SharedLoadCodec;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.util.HexFormat;
import java.util.concurrent.Callable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Decoders allocate in proportion to the message, never to what its headers claim: a header
 * announcing 2^31 elements in a few bytes must fail without allocating for them, and a large valid
 * message costs a small multiple of its size. Measured with the JVM's per-thread allocation
 * counter, so the bound is on what was actually allocated.
 */
class DecoderAllocationTest {

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  // Exceptions, messages, cursors and the counter's own noise.
  private static final long SLACK = 64 * 1024;

  private static byte[] hex(String h) {
    return HexFormat.of().parseHex(h.replace(" ", ""));
  }

  private static long allocated(Callable<?> decode) throws Exception {
    assumeThat(THREADS.isThreadAllocatedMemorySupported())
        .as("this JVM cannot count per-thread allocation")
        .isTrue();
    THREADS.setThreadAllocatedMemoryEnabled(true);
    long tid = Thread.currentThread().getId();
    // Warm up class loading and the counter.
    for (int i = 0; i < 3; i++) {
      try {
        decode.call();
      } catch (EventDecodeException | SharedLoadCodec.MalformedException e) {
        // expected for hostile input
      }
    }
    long before = THREADS.getThreadAllocatedBytes(tid);
    try {
      decode.call();
    } catch (EventDecodeException | SharedLoadCodec.MalformedException e) {
      // expected for hostile input
    }
    return THREADS.getThreadAllocatedBytes(tid) - before;
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    // [ts, events(2^31-1)]
    "events array header 2^31-1, 92 00 dd 7fffffff",
    // [ts, events(2^32-1)]
    "events array header 2^32-1, 92 00 ddffffffff 00",
    // [ts, [[BlockStored, hashes(2^31-1)…]]]
    "block hashes header 2^31-1, 92 00 91 95 ab426c6f636b53746f726564 dd7fffffff 01 02",
    // [ts, [[BlockStored, [1], nil, tokens(2^31-1)…]]]
    "token ids header 2^31-1, 92 00 91 95 ab426c6f636b53746f726564 9101 c0 dd7fffffff",
    // {2^32-1 entries}
    "batch map header 2^32-1, dfffffffff 00 00",
    // [ts, [[tag string of 2^31-1 bytes]]]
    "string header 2^31-1, 92 00 91 91 db7fffffff 41",
    // [ts, [[BlockRemoved, [bin of 2^31-1 bytes]]]]
    "binary hash header 2^31-1, 92 00 91 92 ac426c6f636b52656d6f766564 91 c67fffffff 00",
    // [ts, [ext of 2^31-1 bytes]]
    "extension header 2^31-1, 92 00 91 c97fffffff 01 00",
  })
  void aHostileEventHeaderFailsWithoutAllocatingForIt(String name, String hex) throws Exception {
    byte[] in = HexFormat.of().parseHex(hex.replace(" ", ""));
    assertThatThrownBy(() -> KvEventDecoder.decode(in)).isInstanceOf(EventDecodeException.class);
    assertThat(allocated(() -> KvEventDecoder.decode(in))).as(name).isLessThan(SLACK);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    // {"v": 1, "router": array(2^31-1)}
    "router hashes header 2^31-1, 82 a176 01 a6726f75746572 dd7fffffff 00",
    // {"v": 1, "engine": array(2^26)}: at MAX_PAIRS, still more than the bytes
    "engine hashes header 2^26, 82 a176 01 a6656e67696e65 dd04000000 00",
    "snapshot map header 2^32-1, dfffffffff 00",
  })
  void aHostileSnapshotHeaderFailsWithoutAllocatingForIt(String name, String hex) throws Exception {
    byte[] in = HexFormat.of().parseHex(hex.replace(" ", ""));
    assertThatThrownBy(() -> ViewSnapshot.decode(in)).isInstanceOf(EventDecodeException.class);
    assertThat(allocated(() -> ViewSnapshot.decode(in))).as(name).isLessThan(SLACK);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    // 'I' 'L' v1 update replica count=0xffff
    "update entry count 65535, 494c0101 0000000000000001 ffff 00",
    // … one entry, worker id length 0xffff
    "worker id length 65535, 494c0101 0000000000000001 0001 00 ffff 41",
  })
  void aHostileLoadMessageFailsWithoutAllocatingForIt(String name, String hex) throws Exception {
    byte[] in = HexFormat.of().parseHex(hex.replace(" ", ""));
    assertThatThrownBy(() -> SharedLoadCodec.decode(in))
        .isInstanceOf(SharedLoadCodec.MalformedException.class);
    assertThat(allocated(() -> SharedLoadCodec.decode(in))).as(name).isLessThan(SLACK);
  }

  /**
   * The worst honest ratio: one-byte elements that become 8-byte longs (hashes) or 4-byte ints
   * (tokens). A 1 MiB message may cost a small multiple of 1 MiB, never more.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"hashes", "tokens", "events"})
  void aLargeMessageCostsASmallMultipleOfItsSize(String shape) throws Exception {
    int n = 1 << 20;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    switch (shape) {
      case "hashes" -> {
        // [ts, [[BlockRemoved, [1, 1, …]]]]
        out.write(hex("92 00 91 92 ac426c6f636b52656d6f766564 dd00100000"));
        for (int i = 0; i < n; i++) {
          out.write(1);
        }
      }
      case "tokens" -> {
        // [ts, [[BlockStored, [1], nil, [1, 1, …], 1048576]]]
        out.write(hex("92 00 91 95 ab426c6f636b53746f726564 9101 c0 dd00100000"));
        for (int i = 0; i < n; i++) {
          out.write(1);
        }
        out.write(hex("ce00100000"));
      }
      default -> {
        // [ts, [[AllBlocksCleared] × 2^16]]
        out.write(hex("92 00 dd00010000"));
        byte[] cleared = hex("91 b0416c6c426c6f636b73436c6561726564");
        for (int i = 0; i < 1 << 16; i++) {
          out.write(cleared);
        }
      }
    }
    byte[] in = out.toByteArray();
    EventBatch b = KvEventDecoder.decode(in);
    assertThat(b.events()).isNotEmpty();
    long bytes = allocated(() -> KvEventDecoder.decode(in));
    System.out.printf(
        "DecoderAllocationTest shape=%s message=%d allocated=%d ratio=%.1f%n",
        shape, in.length, bytes, bytes / (double) in.length);
    assertThat(bytes).isLessThan(16L * in.length + SLACK);
  }
}
