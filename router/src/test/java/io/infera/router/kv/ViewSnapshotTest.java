package io.infera.router.kv;

import static io.infera.router.kv.Events.batch;
import static io.infera.router.kv.Events.longs;
import static io.infera.router.kv.Events.range;
import static io.infera.router.kv.Events.removed;
import static io.infera.router.kv.Events.stored;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

class ViewSnapshotTest {

  private static final int P = 4;
  private static final WorkerId A = WorkerId.of("a");
  private static final SourceId A0 = new SourceId(A, 0);
  private final BlockHasher hasher = new BlockHasher(P);

  @Test
  void roundTripsIncludingHashesAboveTwoToThe63() throws Exception {
    ViewSnapshot s =
        ViewSnapshot.of(16, 41, 1234, longs(5, -1, 3, Long.MIN_VALUE), longs(-7, 8, 9, 10));
    ViewSnapshot back = ViewSnapshot.decode(s.encode());
    assertThat(back).isEqualTo(s);
    assertThat(back.routerHashes()).containsExactly(3, 5, Long.MIN_VALUE, -1);
    assertThat(back.engineHashes()).containsExactly(9, -7, 10, 8);
    ViewSnapshot none = new ViewSnapshot(16, KvEventMessage.NO_SEQ, 0, new long[0], new long[0]);
    assertThat(ViewSnapshot.decode(none.encode())).isEqualTo(none);
  }

  /**
   * Hashes at or above 2^63 are written as msgpack uint 64 (0xcf and eight big-endian bytes), byte
   * for byte what msgpack's own packBigInteger writes, and random hashes round-trip.
   */
  @Test
  void unsignedHashesAreMsgpackUint64AndRandomOnesRoundTrip() throws Exception {
    ViewSnapshot one = ViewSnapshot.of(16, 1, 0, longs(0x8000_0000_0000_0001L), longs(-2));
    org.msgpack.core.MessageBufferPacker ref =
        org.msgpack.core.MessagePack.newDefaultBufferPacker();
    ref.packBigInteger(new java.math.BigInteger("9223372036854775809"));
    byte[] want = ref.toByteArray();
    byte[] got = one.encode();
    assertThat(want).hasSize(9).startsWith((byte) 0xcf);
    assertThat(indexOf(got, want)).as("the uint 64 of 2^63 + 1 in the snapshot").isNotNegative();
    java.util.Random r = new java.util.Random(17);
    for (int trial = 0; trial < 200; trial++) {
      int n = r.nextInt(300);
      long[] router = r.longs(n).toArray();
      long[] engine = r.longs(n).toArray();
      ViewSnapshot s = ViewSnapshot.of(16, r.nextInt(1_000_000), r.nextInt(1000), router, engine);
      assertThat(ViewSnapshot.decode(s.encode())).isEqualTo(s);
    }
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  @Test
  void aSeededIndexMatchesAndKeepsApplyingLikeTheOriginal() throws Exception {
    PrefixIndex original = new PrefixIndex(P);
    original.apply(A, 7, batch(stored(P, longs(101, 102, 103), null, range(1, 12))));
    // A duplicate store of 101: one more reference that a single removal must not drop.
    original.apply(A, 8, batch(stored(P, longs(101), null, range(1, 4))));
    ViewSnapshot snap = original.snapshot(A0, 99);
    assertThat(snap.size()).isEqualTo(4);
    assertThat(snap.engineSeq()).isEqualTo(8);
    assertThat(snap.streamSeq()).isEqualTo(99);

    PrefixIndex seeded = new PrefixIndex(P);
    seeded.seed(A0, ViewSnapshot.decode(encodeUnchecked(snap)));
    long[] request = hasher.requestHashes(range(1, 12), 0);
    assertThat(seeded.match(request).hits(A)).isEqualTo(3);
    assertThat(seeded.viewHashes(A0)).containsExactlyInAnyOrder(original.viewHashes(A0));
    assertThat(seeded.stats().sources().get(0).lastSeq()).isEqualTo(8);

    // Later events resolve through the seeded engine hashes on both sides alike.
    for (PrefixIndex idx : new PrefixIndex[] {original, seeded}) {
      idx.apply(A, 9, batch(stored(P, longs(104), 103L, range(13, 4))));
      idx.apply(A, 10, batch(removed(101)));
    }
    long[] longer = hasher.requestHashes(range(1, 16), 0);
    assertThat(seeded.match(longer).hits(A)).isEqualTo(4).isEqualTo(original.match(longer).hits(A));
    seeded.apply(A, 11, batch(removed(101)));
    assertThat(seeded.match(longer).hits(A)).isZero();
    assertThat(seeded.stats().dropped(DropReason.UNKNOWN_PARENT)).isZero();
  }

  @Test
  void aSnapshotOfAnUnusableBlockSizeIsRefused() {
    PrefixIndex idx = new PrefixIndex(P);
    int tooBig = PrefixIndex.MAX_BLOCK_SIZE + 1;
    ViewSnapshot other = new ViewSnapshot(tooBig, 1, 1, longs(1), longs(2));
    assertThat(idx.acceptsSnapshot(A0, other)).isFalse();
    assertThatThrownBy(() -> idx.seed(A0, other))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("block size " + tooBig);
    // Empty, it says nothing about the size and is taken.
    ViewSnapshot empty = new ViewSnapshot(tooBig, 1, 1, new long[0], new long[0]);
    idx.seed(A0, empty);
    assertThat(idx.stats().sources().get(0).blockSize()).isNull();
  }

  @Test
  void aSnapshotCarriesTheSourcesOwnBlockSizeAndSeedsItIntoTheRouter() throws Exception {
    int forced = 4 * P; // the engine's backend forced a larger block than the page size
    PrefixIndex relay = new PrefixIndex(P);
    relay.apply(A, 3, batch(stored(forced, longs(101, 102), null, range(1, 2 * forced))));
    ViewSnapshot snap = ViewSnapshot.decode(relay.snapshot(A0, 50).encode());
    assertThat(snap.blockSize()).isEqualTo(forced);
    assertThat(snap.size()).isEqualTo(2);

    PrefixIndex router = new PrefixIndex(P);
    assertThat(router.acceptsSnapshot(A0, snap)).isTrue();
    router.seed(A0, snap);
    assertThat(router.otherBlockSizes()).containsExactly(forced);
    assertThat(router.stats().sources().get(0).blockSize()).isEqualTo(forced);
    RequestHashes request =
        new RequestHasher(P).hash(range(1, 2 * forced + P), 0, router.otherBlockSizes());
    // Two 16-token blocks held = 8 blocks of the page size.
    assertThat(router.match(request).hits(A)).isEqualTo(8).isEqualTo(relay.match(request).hits(A));
    // Later events chain from the seeded engine hashes at the seeded size.
    router.apply(A, 4, batch(stored(forced, longs(103), 102L, range(2 * forced + 1, forced))));
    RequestHashes longer =
        new RequestHasher(P).hash(range(1, 3 * forced), 0, router.otherBlockSizes());
    assertThat(router.match(longer).hits(A)).isEqualTo(12);
    assertThat(router.stats().dropped(DropReason.UNKNOWN_PARENT)).isZero();
  }

  @Test
  void malformedSnapshotsAreTypedErrors() throws Exception {
    assertKind(new byte[0], EventDecodeException.Kind.EMPTY);
    assertKind(new byte[] {(byte) 0x93, 1, 2, 3}, EventDecodeException.Kind.WRONG_TYPE);
    byte[] good = new ViewSnapshot(16, 1, 5, longs(1, 2), longs(3, 4)).encode();
    assertKind(Arrays.copyOf(good, good.length - 3), EventDecodeException.Kind.TRUNCATED);
    byte[] trailing = Arrays.copyOf(good, good.length + 1);
    assertKind(trailing, EventDecodeException.Kind.TRAILING_BYTES);
    // A header announcing 2^31 hashes with a few bytes behind it.
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packMapHeader(1).packString("router").packArrayHeader(Integer.MAX_VALUE);
      assertKind(p.toByteArray(), EventDecodeException.Kind.OVERSIZED);
    }
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packMapHeader(5).packString("v").packInt(1).packString("block_size").packInt(16);
      p.packString("stream_seq").packLong(1);
      p.packString("router").packArrayHeader(1).packLong(1);
      p.packString("engine").packArrayHeader(0);
      assertKind(p.toByteArray(), EventDecodeException.Kind.INVALID);
    }
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packMapHeader(1).packString("v").packInt(2);
      assertKind(p.toByteArray(), EventDecodeException.Kind.INVALID);
    }
  }

  @Test
  void fuzzedBytesNeverEscapeAsAnythingButATypedError() {
    Random rnd = new Random(42);
    byte[] good = new ViewSnapshot(16, 3, 9, longs(1, -2, 3), longs(4, 5, -6)).encode();
    for (int run = 0; run < 50_000; run++) {
      byte[] b;
      if (run % 2 == 0) {
        b = good.clone();
        for (int k = 0; k < 1 + rnd.nextInt(4); k++) {
          b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
        }
        if (rnd.nextBoolean()) {
          b = Arrays.copyOf(b, rnd.nextInt(b.length + 1));
        }
      } else {
        b = new byte[rnd.nextInt(64)];
        rnd.nextBytes(b);
      }
      try {
        ViewSnapshot s = ViewSnapshot.decode(b);
        assertThat(s.routerHashes()).hasSameSizeAs(s.engineHashes());
      } catch (EventDecodeException expected) {
        assertThat(expected.getMessage()).isNotBlank();
      }
    }
  }

  private static byte[] encodeUnchecked(ViewSnapshot s) {
    return s.encode();
  }

  private static void assertKind(byte[] bytes, EventDecodeException.Kind kind) {
    assertThatThrownBy(() -> ViewSnapshot.decode(bytes))
        .isInstanceOf(EventDecodeException.class)
        .satisfies(e -> assertThat(((EventDecodeException) e).kind()).isEqualTo(kind));
  }
}
