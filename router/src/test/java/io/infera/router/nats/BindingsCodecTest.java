package io.infera.router.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.kv.WorkerId;
import io.infera.router.nats.SharedLoadMessage.BindingEntry;
import io.infera.router.nats.SharedLoadMessage.Bindings;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The kind-5 wire form: layout, caps at and past their limits, forged fields refused. */
class BindingsCodecTest {

  private static BindingEntry entry(long session, String first, String decode) {
    return new BindingEntry(
        session,
        first == null ? null : WorkerId.of(first),
        first == null ? -1 : 0,
        decode == null ? null : WorkerId.of(decode),
        decode == null ? -1 : 3,
        7,
        42);
  }

  private static SharedLoadCodec.MalformedException.Kind kind(byte[] wire) {
    try {
      SharedLoadCodec.decode(wire);
      throw new AssertionError("decoded");
    } catch (SharedLoadCodec.MalformedException e) {
      return e.kind();
    }
  }

  @Test
  void theLayoutIsTheDocumentedOne() throws Exception {
    byte[] wire =
        SharedLoadCodec.encode(new Bindings(9, List.of(entry(0x1122334455667788L, "w0", "d1"))));
    ByteBuffer b = ByteBuffer.wrap(wire);
    assertThat(new byte[] {b.get(), b.get(), b.get(), b.get()}).containsExactly('I', 'L', 1, 5);
    assertThat(b.getLong()).isEqualTo(9);
    assertThat(b.getShort()).isEqualTo((short) 1);
    assertThat(b.getLong()).isEqualTo(0x1122334455667788L);
    assertThat(b.get()).isEqualTo((byte) 3);
    assertThat(b.getShort()).isEqualTo((short) 2);
    b.position(b.position() + 2);
    assertThat(b.getInt()).isZero();
    assertThat(b.getShort()).isEqualTo((short) 2);
    b.position(b.position() + 2);
    assertThat(b.getInt()).isEqualTo(3);
    assertThat(b.getLong()).isEqualTo(7);
    assertThat(b.getLong()).isEqualTo(42);
    assertThat(b.hasRemaining()).isFalse();
    assertThat(SharedLoadCodec.decode(wire))
        .isEqualTo(new Bindings(9, List.of(entry(0x1122334455667788L, "w0", "d1"))));
  }

  @Test
  void theEntryCapHoldsAtItsLimitAndRefusesPastIt() throws Exception {
    List<BindingEntry> max = new ArrayList<>();
    for (int i = 0; i < SharedLoadMessage.MAX_BINDING_ENTRIES; i++) {
      max.add(entry(i, "w" + i, null));
    }
    Bindings full = new Bindings(1, max);
    assertThat(SharedLoadCodec.decode(SharedLoadCodec.encode(full))).isEqualTo(full);
    List<BindingEntry> over = new ArrayList<>(max);
    over.add(entry(-1, "w", null));
    assertThatThrownBy(() -> new Bindings(1, over)).isInstanceOf(IllegalArgumentException.class);
    // A forged count past the cap is refused before anything is allocated.
    byte[] wire = SharedLoadCodec.encode(full);
    ByteBuffer.wrap(wire).putShort(12, (short) (SharedLoadMessage.MAX_BINDING_ENTRIES + 1));
    assertThat(kind(wire)).isEqualTo(SharedLoadCodec.MalformedException.Kind.INVALID);
    // A count the bytes cannot hold is truncation, not an allocation.
    byte[] lying = SharedLoadCodec.encode(new Bindings(1, List.of(entry(1, "w", null))));
    ByteBuffer.wrap(lying).putShort(12, (short) 400);
    assertThat(kind(lying)).isEqualTo(SharedLoadCodec.MalformedException.Kind.TRUNCATED);
  }

  @Test
  void workerIdsAreCappedAtTheLoadMessagesLimit() throws Exception {
    String longest = "w".repeat(SharedLoadMessage.MAX_WORKER_BYTES);
    Bindings ok = new Bindings(1, List.of(entry(1, longest, null)));
    assertThat(SharedLoadCodec.decode(SharedLoadCodec.encode(ok))).isEqualTo(ok);
    Bindings tooLong = new Bindings(1, List.of(entry(1, longest + "w", null)));
    assertThatThrownBy(() -> SharedLoadCodec.encode(tooLong))
        .isInstanceOf(IllegalArgumentException.class);
    byte[] wire = SharedLoadCodec.encode(ok);
    ByteBuffer.wrap(wire).putShort(12 + 2 + 8 + 1, (short) 1025);
    assertThat(kind(wire)).isEqualTo(SharedLoadCodec.MalformedException.Kind.INVALID);
  }

  @Test
  void forgedFieldsAreRefused() {
    byte[] base = SharedLoadCodec.encode(new Bindings(1, List.of(entry(1, "w0", null))));
    int flags = 12 + 2 + 8;
    int rank = flags + 1 + 2 + 2;
    int version = rank + 4;
    byte[] noWorker = base.clone();
    noWorker[flags] = 0;
    assertThat(kind(noWorker)).isEqualTo(SharedLoadCodec.MalformedException.Kind.INVALID);
    byte[] unknownFlag = base.clone();
    unknownFlag[flags] = 5;
    assertThat(kind(unknownFlag)).isEqualTo(SharedLoadCodec.MalformedException.Kind.INVALID);
    byte[] badRank = base.clone();
    ByteBuffer.wrap(badRank).putInt(rank, 65_536);
    assertThat(kind(badRank)).isEqualTo(SharedLoadCodec.MalformedException.Kind.INVALID);
    byte[] negativeRank = base.clone();
    ByteBuffer.wrap(negativeRank).putInt(rank, -2);
    assertThat(kind(negativeRank)).isEqualTo(SharedLoadCodec.MalformedException.Kind.INVALID);
    byte[] zeroVersion = base.clone();
    ByteBuffer.wrap(zeroVersion).putLong(version, 0);
    assertThat(kind(zeroVersion)).isEqualTo(SharedLoadCodec.MalformedException.Kind.INVALID);
    byte[] hugeVersion = base.clone();
    ByteBuffer.wrap(hugeVersion).putLong(version, Long.MAX_VALUE);
    assertThat(kind(hugeVersion)).isEqualTo(SharedLoadCodec.MalformedException.Kind.INVALID);
    byte[] blank = base.clone();
    blank[flags + 3] = ' ';
    blank[flags + 4] = ' ';
    assertThat(kind(blank)).isEqualTo(SharedLoadCodec.MalformedException.Kind.INVALID);
    byte[] notUtf8 = base.clone();
    notUtf8[flags + 3] = (byte) 0xff;
    assertThat(kind(notUtf8)).isEqualTo(SharedLoadCodec.MalformedException.Kind.INVALID);
    byte[] trailing = java.util.Arrays.copyOf(base, base.length + 1);
    assertThat(kind(trailing)).isEqualTo(SharedLoadCodec.MalformedException.Kind.TRAILING_BYTES);
    byte[] empty = java.util.Arrays.copyOf(base, 14);
    ByteBuffer.wrap(empty).putShort(12, (short) 0);
    assertThat(kind(empty)).isEqualTo(SharedLoadCodec.MalformedException.Kind.INVALID);
  }
}
