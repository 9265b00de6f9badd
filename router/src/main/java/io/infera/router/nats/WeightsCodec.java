package io.infera.router.nats;

import io.infera.router.nats.SharedLoadMessage.WeightEntry;
import io.infera.router.nats.SharedLoadMessage.Weights;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The wire form of {@link Weights} (load message kind 4), for {@link SharedLoadCodec}. */
final class WeightsCodec {

  static final byte KIND_WEIGHTS = 4;

  // name length + at least one name byte + role + weight + samples
  private static final int MIN_ENTRY_BYTES = 2 + 1 + 1 + 8 + 8;

  private WeightsCodec() {}

  /**
   * @throws IllegalArgumentException when a pool name is longer than {@link
   *     SharedLoadMessage#MAX_POOL_BYTES}
   */
  static byte[] encode(Weights w) {
    List<byte[]> names = new ArrayList<>(w.estimates().size());
    int size = 12 + 2;
    for (WeightEntry e : w.estimates()) {
      byte[] name = e.pool().getBytes(StandardCharsets.UTF_8);
      if (name.length > SharedLoadMessage.MAX_POOL_BYTES) {
        throw new IllegalArgumentException(
            "pool name longer than " + SharedLoadMessage.MAX_POOL_BYTES + " bytes");
      }
      names.add(name);
      size += MIN_ENTRY_BYTES - 1 + name.length;
    }
    ByteBuffer buf = ByteBuffer.allocate(size);
    buf.put((byte) 'I').put((byte) 'L').put((byte) SharedLoadMessage.VERSION).put(KIND_WEIGHTS);
    buf.putLong(w.replica());
    buf.putShort((short) w.estimates().size());
    for (int i = 0; i < names.size(); i++) {
      WeightEntry e = w.estimates().get(i);
      byte[] name = names.get(i);
      buf.putShort((short) name.length).put(name);
      buf.put((byte) e.role()).putDouble(e.weight()).putLong(e.samples());
    }
    return buf.array();
  }

  /** The rest of a kind-4 message after its replica id. */
  static Weights read(ByteBuffer buf, long replica) throws SharedLoadCodec.MalformedException {
    int n = Short.toUnsignedInt(buf.getShort());
    if (n == 0 || n > SharedLoadMessage.MAX_WEIGHT_ENTRIES) {
      throw SharedLoadCodec.invalid("weights message announces " + n + " estimates");
    }
    if (n > buf.remaining() / MIN_ENTRY_BYTES) {
      throw new BufferUnderflowException();
    }
    List<WeightEntry> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int len = Short.toUnsignedInt(buf.getShort());
      if (len == 0 || len > SharedLoadMessage.MAX_POOL_BYTES) {
        throw SharedLoadCodec.invalid("pool name of " + len + " bytes");
      }
      if (len > buf.remaining()) {
        throw new BufferUnderflowException();
      }
      String pool = utf8(buf, len);
      int role = Byte.toUnsignedInt(buf.get());
      double weight = buf.getDouble();
      long samples = buf.getLong();
      if (role > 2) {
        throw SharedLoadCodec.invalid("role " + role + " for pool " + pool);
      }
      if (!(weight > 0 && weight <= SharedLoadMessage.MAX_WEIGHT)) {
        throw SharedLoadCodec.invalid("weight " + weight + " for pool " + pool);
      }
      if (samples < 0) {
        throw SharedLoadCodec.invalid("negative samples for pool " + pool);
      }
      out.add(new WeightEntry(pool, role, weight, samples));
    }
    return new Weights(replica, out);
  }

  private static String utf8(ByteBuffer buf, int len) throws SharedLoadCodec.MalformedException {
    ByteBuffer slice = buf.slice();
    slice.limit(len);
    buf.position(buf.position() + len);
    CharBuffer chars;
    try {
      chars =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(slice);
    } catch (CharacterCodingException e) {
      throw SharedLoadCodec.invalid("pool name is not UTF-8");
    }
    String s = chars.toString();
    if (s.isBlank()) {
      throw SharedLoadCodec.invalid("pool name is blank");
    }
    return s;
  }
}
