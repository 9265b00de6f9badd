package io.infera.router.nats;

import io.infera.router.kv.WorkerId;
import io.infera.router.nats.SharedLoadMessage.BindingEntry;
import io.infera.router.nats.SharedLoadMessage.Bindings;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The wire form of {@link Bindings} (load message kind 5), for {@link SharedLoadCodec}. */
final class BindingsCodec {

  static final byte KIND_BINDINGS = 5;

  private static final int FLAG_FIRST = 1;
  private static final int FLAG_DECODE = 2;

  // session + flags + one worker (length, one byte, rank) + version + origin
  private static final int MIN_ENTRY_BYTES = 8 + 1 + (2 + 1 + 4) + 8 + 8;

  private BindingsCodec() {}

  /**
   * @throws IllegalArgumentException when a worker id is longer than {@link
   *     SharedLoadMessage#MAX_WORKER_BYTES}
   */
  static byte[] encode(Bindings b) {
    List<byte[][]> ids = new ArrayList<>(b.entries().size());
    int size = 12 + 2;
    for (BindingEntry e : b.entries()) {
      byte[] first = id(e.first());
      byte[] decode = id(e.decode());
      ids.add(new byte[][] {first, decode});
      size += 8 + 1 + 8 + 8;
      size += first == null ? 0 : 2 + first.length + 4;
      size += decode == null ? 0 : 2 + decode.length + 4;
    }
    ByteBuffer buf = ByteBuffer.allocate(size);
    buf.put((byte) 'I').put((byte) 'L').put((byte) SharedLoadMessage.VERSION).put(KIND_BINDINGS);
    buf.putLong(b.replica());
    buf.putShort((short) b.entries().size());
    for (int i = 0; i < ids.size(); i++) {
      BindingEntry e = b.entries().get(i);
      byte[] first = ids.get(i)[0];
      byte[] decode = ids.get(i)[1];
      buf.putLong(e.session());
      buf.put((byte) ((first == null ? 0 : FLAG_FIRST) | (decode == null ? 0 : FLAG_DECODE)));
      if (first != null) {
        buf.putShort((short) first.length).put(first).putInt(e.firstRank());
      }
      if (decode != null) {
        buf.putShort((short) decode.length).put(decode).putInt(e.decodeRank());
      }
      buf.putLong(e.version()).putLong(e.origin());
    }
    return buf.array();
  }

  private static byte[] id(WorkerId w) {
    if (w == null) {
      return null;
    }
    byte[] id = w.value().getBytes(StandardCharsets.UTF_8);
    if (id.length > SharedLoadMessage.MAX_WORKER_BYTES) {
      throw new IllegalArgumentException(
          "worker id longer than " + SharedLoadMessage.MAX_WORKER_BYTES + " bytes");
    }
    return id;
  }

  /** The rest of a kind-5 message after its replica id. */
  static Bindings read(ByteBuffer buf, long replica) throws SharedLoadCodec.MalformedException {
    int n = Short.toUnsignedInt(buf.getShort());
    if (n == 0 || n > SharedLoadMessage.MAX_BINDING_ENTRIES) {
      throw SharedLoadCodec.invalid("bindings message announces " + n + " entries");
    }
    // A count the remaining bytes cannot hold is a lie, not an allocation.
    if (n > buf.remaining() / MIN_ENTRY_BYTES) {
      throw new BufferUnderflowException();
    }
    List<BindingEntry> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      long session = buf.getLong();
      int flags = Byte.toUnsignedInt(buf.get());
      if (flags == 0 || (flags & ~(FLAG_FIRST | FLAG_DECODE)) != 0) {
        throw SharedLoadCodec.invalid("binding flags " + flags);
      }
      WorkerId first = null;
      int firstRank = -1;
      if ((flags & FLAG_FIRST) != 0) {
        first = worker(buf);
        firstRank = rank(buf);
      }
      WorkerId decode = null;
      int decodeRank = -1;
      if ((flags & FLAG_DECODE) != 0) {
        decode = worker(buf);
        decodeRank = rank(buf);
      }
      long version = buf.getLong();
      long origin = buf.getLong();
      if (version < 1 || version > SharedLoadMessage.MAX_BINDING_VERSION) {
        throw SharedLoadCodec.invalid("binding version " + version);
      }
      out.add(new BindingEntry(session, first, firstRank, decode, decodeRank, version, origin));
    }
    return new Bindings(replica, out);
  }

  private static int rank(ByteBuffer buf) throws SharedLoadCodec.MalformedException {
    int r = buf.getInt();
    if (r < -1 || r > SharedLoadMessage.MAX_BINDING_RANK) {
      throw SharedLoadCodec.invalid("binding rank " + r);
    }
    return r;
  }

  private static WorkerId worker(ByteBuffer buf) throws SharedLoadCodec.MalformedException {
    int len = Short.toUnsignedInt(buf.getShort());
    if (len == 0 || len > SharedLoadMessage.MAX_WORKER_BYTES) {
      throw SharedLoadCodec.invalid("worker id of " + len + " bytes");
    }
    if (len > buf.remaining()) {
      throw new BufferUnderflowException();
    }
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
      throw SharedLoadCodec.invalid("worker id is not UTF-8");
    }
    String id = chars.toString();
    if (id.isBlank()) {
      throw SharedLoadCodec.invalid("worker id is blank");
    }
    return WorkerId.of(id);
  }
}
