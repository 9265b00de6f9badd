package io.infera.router.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.kv.WorkerId;
import io.infera.router.nats.SharedLoadCodec.MalformedException;
import io.infera.router.nats.SharedLoadCodec.MalformedException.Kind;
import io.infera.router.nats.SharedLoadMessage.Bye;
import io.infera.router.nats.SharedLoadMessage.Entry;
import io.infera.router.nats.SharedLoadMessage.Heartbeat;
import io.infera.router.nats.SharedLoadMessage.Update;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SharedLoadCodecTest {

  private static final WorkerId W = WorkerId.of("vllm-0");

  @Test
  void everyKindRoundTrips() throws Exception {
    List<SharedLoadMessage> messages =
        List.of(
            new Update(42, List.of(new Entry(W, 7, 120, 3, true, 16.5))),
            new Update(
                -1,
                List.of(
                    new Entry(W, 8, 0, 0, false, 0),
                    new Entry(WorkerId.of("pod-é-1"), Long.MAX_VALUE, 5, 1, true, 0))),
            new Heartbeat(Long.MIN_VALUE, 99, List.of(new Entry(W, 98, 64, 2, false, 0))),
            new Heartbeat(3, 0, List.of()),
            new Bye(0x1234_5678_9abcL));
    for (SharedLoadMessage m : messages) {
      assertThat(SharedLoadCodec.decode(SharedLoadCodec.encode(m))).isEqualTo(m);
    }
  }

  @Test
  void theWireFormIsAsDocumented() {
    byte[] bytes =
        SharedLoadCodec.encode(
            new Update(
                0x0102030405060708L, List.of(new Entry(WorkerId.of("w"), 9, 4, 1, true, 2))));
    assertThat(HexFormat.of().formatHex(bytes))
        .isEqualTo(
            "494c" // magic
                + "01" // version
                + "01" // kind: update
                + "0102030405060708" // replica
                + "0001" // one entry
                + "01" // flags: pick
                + "0001" // id length
                + "77" // "w"
                + "0000000000000009" // seq
                + "0000000000000004" // active blocks
                + "00000001" // in flight
                + "4000000000000000"); // charge 2.0
  }

  static Stream<Arguments> malformed() {
    byte[] valid = SharedLoadCodec.encode(new Update(5, List.of(new Entry(W, 1, 2, 1, true, 3.0))));
    byte[] heartbeat =
        SharedLoadCodec.encode(new Heartbeat(5, 1, List.of(new Entry(W, 1, 2, 1, false, 0))));
    return Stream.of(
        Arguments.of("null", null, Kind.EMPTY),
        Arguments.of("empty", new byte[0], Kind.EMPTY),
        Arguments.of("one byte", new byte[] {'I'}, Kind.BAD_MAGIC),
        Arguments.of("json", "{\"worker\":\"a\"}".getBytes(), Kind.BAD_MAGIC),
        Arguments.of("version 2", with(valid, 2, (byte) 2), Kind.UNSUPPORTED_VERSION),
        Arguments.of("kind 9", with(valid, 3, (byte) 9), Kind.UNKNOWN_KIND),
        Arguments.of("header only", slice(valid, 12), Kind.TRUNCATED),
        Arguments.of("cut in the worker id", slice(valid, 18), Kind.TRUNCATED),
        Arguments.of("cut in the charge", slice(valid, valid.length - 3), Kind.TRUNCATED),
        Arguments.of("trailing byte", append(valid, (byte) 0), Kind.TRAILING_BYTES),
        Arguments.of("no entries", hex("494c0101" + "0000000000000005" + "0000"), Kind.INVALID),
        Arguments.of(
            "count beyond the limit", hex("494c0101" + "0000000000000005" + "ffff"), Kind.INVALID),
        Arguments.of(
            "count beyond the bytes",
            hex("494c0101" + "0000000000000005" + "0002"),
            Kind.TRUNCATED),
        Arguments.of("unknown flag", with(valid, 14, (byte) 3), Kind.INVALID),
        Arguments.of("pick in a heartbeat", with(heartbeat, 22, (byte) 1), Kind.INVALID),
        Arguments.of("empty worker id", withShort(valid, 15, 0), Kind.INVALID),
        Arguments.of("blank worker id", entry(1, " ".getBytes(), 1, 1, 1, 1.0), Kind.INVALID),
        Arguments.of(
            "worker id not UTF-8", entry(1, new byte[] {(byte) 0xc3}, 1, 1, 1, 1.0), Kind.INVALID),
        Arguments.of("negative seq", entry(1, "w".getBytes(), -1, 1, 1, 1.0), Kind.INVALID),
        Arguments.of("negative active", entry(1, "w".getBytes(), 1, -5, 1, 1.0), Kind.INVALID),
        Arguments.of("negative in flight", entry(1, "w".getBytes(), 1, 1, -1, 1.0), Kind.INVALID),
        Arguments.of("NaN charge", entry(1, "w".getBytes(), 1, 1, 1, Double.NaN), Kind.INVALID),
        Arguments.of("negative charge", entry(1, "w".getBytes(), 1, 1, 1, -2.0), Kind.INVALID),
        Arguments.of(
            "infinite charge",
            entry(1, "w".getBytes(), 1, 1, 1, Double.POSITIVE_INFINITY),
            Kind.INVALID),
        Arguments.of("huge charge", entry(1, "w".getBytes(), 1, 1, 1, 1e300), Kind.INVALID));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void malformedInputIsATypedError(String name, byte[] input, Kind kind) {
    assertThatThrownBy(() -> SharedLoadCodec.decode(input))
        .isInstanceOfSatisfying(
            MalformedException.class, e -> assertThat(e.kind()).isEqualTo(kind));
  }

  @Test
  void encodingRefusesAnOverlongWorkerId() {
    WorkerId longId = WorkerId.of("x".repeat(SharedLoadMessage.MAX_WORKER_BYTES + 1));
    assertThatThrownBy(
            () ->
                SharedLoadCodec.encode(
                    new Update(1, List.of(new Entry(longId, 1, 1, 1, false, 0)))))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static byte[] with(byte[] b, int at, byte value) {
    byte[] c = b.clone();
    c[at] = value;
    return c;
  }

  private static byte[] withShort(byte[] b, int at, int value) {
    byte[] c = b.clone();
    ByteBuffer.wrap(c).putShort(at, (short) value);
    return c;
  }

  private static byte[] slice(byte[] b, int len) {
    return java.util.Arrays.copyOf(b, len);
  }

  private static byte[] append(byte[] b, byte extra) {
    byte[] c = java.util.Arrays.copyOf(b, b.length + 1);
    c[b.length] = extra;
    return c;
  }

  private static byte[] hex(String s) {
    return HexFormat.of().parseHex(s);
  }

  /** An update with one pick entry, written by hand so that invalid values reach the wire. */
  private static byte[] entry(
      long replica, byte[] id, long seq, long active, int inFlight, double charge) {
    ByteBuffer b = ByteBuffer.allocate(12 + 2 + 1 + 2 + id.length + 8 + 8 + 4 + 8);
    b.put((byte) 'I').put((byte) 'L').put((byte) 1).put((byte) 1).putLong(replica);
    b.putShort((short) 1).put((byte) 1).putShort((short) id.length).put(id);
    b.putLong(seq).putLong(active).putInt(inFlight).putDouble(charge);
    return b.array();
  }
}
