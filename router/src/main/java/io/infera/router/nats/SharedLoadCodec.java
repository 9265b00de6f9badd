package io.infera.router.nats;

import io.infera.router.kv.WorkerId;
import io.infera.router.nats.SharedLoadMessage.Bye;
import io.infera.router.nats.SharedLoadMessage.Entry;
import io.infera.router.nats.SharedLoadMessage.Heartbeat;
import io.infera.router.nats.SharedLoadMessage.Update;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Encodes and decodes {@link SharedLoadMessage}s (wire form documented there). */
public final class SharedLoadCodec {

  private static final byte MAGIC_0 = 'I';
  private static final byte MAGIC_1 = 'L';
  private static final byte KIND_UPDATE = 1;
  private static final byte KIND_HEARTBEAT = 2;
  private static final byte KIND_BYE = 3;
  private static final int FLAG_PICK = 1;
  // flags + id length + at least one id byte + seq + active + in flight
  private static final int MIN_ENTRY_BYTES = 1 + 2 + 1 + 8 + 8 + 4;

  /** Why bytes are not a load message. */
  public static final class MalformedException extends Exception {

    /** What was wrong, for the drop counter. */
    public enum Kind {
      EMPTY,
      BAD_MAGIC,
      UNSUPPORTED_VERSION,
      UNKNOWN_KIND,
      TRUNCATED,
      INVALID,
      TRAILING_BYTES
    }

    private final Kind kind;

    MalformedException(Kind kind, String message) {
      super(message, null, false, false);
      this.kind = kind;
    }

    public Kind kind() {
      return kind;
    }
  }

  private SharedLoadCodec() {}

  /**
   * The wire form.
   *
   * @throws IllegalArgumentException when a worker id is longer than {@link
   *     SharedLoadMessage#MAX_WORKER_BYTES}
   */
  public static byte[] encode(SharedLoadMessage m) {
    if (m instanceof SharedLoadMessage.Weights w) {
      return WeightsCodec.encode(w);
    }
    if (m instanceof SharedLoadMessage.Bindings b) {
      return BindingsCodec.encode(b);
    }
    List<Entry> entries = List.of();
    byte kind = KIND_BYE;
    if (m instanceof Update u) {
      entries = u.entries();
      kind = KIND_UPDATE;
    } else if (m instanceof Heartbeat h) {
      entries = h.entries();
      kind = KIND_HEARTBEAT;
    }
    List<byte[]> ids = new ArrayList<>(entries.size());
    int size = 12 + (kind == KIND_HEARTBEAT ? 8 : 0) + (kind == KIND_BYE ? 0 : 2);
    for (Entry e : entries) {
      byte[] id = e.worker().value().getBytes(StandardCharsets.UTF_8);
      if (id.length > SharedLoadMessage.MAX_WORKER_BYTES) {
        throw new IllegalArgumentException(
            "worker id longer than " + SharedLoadMessage.MAX_WORKER_BYTES + " bytes");
      }
      ids.add(id);
      size += MIN_ENTRY_BYTES - 1 + id.length + (e.pick() ? 8 : 0);
    }
    ByteBuffer buf = ByteBuffer.allocate(size);
    buf.put(MAGIC_0).put(MAGIC_1).put((byte) SharedLoadMessage.VERSION).put(kind);
    buf.putLong(m.replica());
    if (m instanceof Heartbeat h) {
      buf.putLong(h.seq());
    }
    if (kind != KIND_BYE) {
      buf.putShort((short) entries.size());
      for (int i = 0; i < entries.size(); i++) {
        Entry e = entries.get(i);
        byte[] id = ids.get(i);
        buf.put((byte) (e.pick() ? FLAG_PICK : 0)).putShort((short) id.length).put(id);
        buf.putLong(e.seq()).putLong(e.activeBlocks()).putInt(e.inFlight());
        if (e.pick()) {
          buf.putDouble(e.charge());
        }
      }
    }
    return buf.array();
  }

  /**
   * Decodes one message.
   *
   * @throws MalformedException naming what is wrong; nothing else escapes, and nothing much larger
   *     than the input is allocated
   */
  public static SharedLoadMessage decode(byte[] bytes) throws MalformedException {
    if (bytes == null || bytes.length == 0) {
      throw new MalformedException(MalformedException.Kind.EMPTY, "empty load message");
    }
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    try {
      if (bytes.length < 2 || buf.get() != MAGIC_0 || buf.get() != MAGIC_1) {
        throw new MalformedException(MalformedException.Kind.BAD_MAGIC, "not a load message");
      }
      int version = Byte.toUnsignedInt(buf.get());
      if (version != SharedLoadMessage.VERSION) {
        throw new MalformedException(
            MalformedException.Kind.UNSUPPORTED_VERSION,
            "load message version " + version + " is not " + SharedLoadMessage.VERSION);
      }
      byte kind = buf.get();
      long replica = buf.getLong();
      SharedLoadMessage m;
      if (kind == KIND_BYE) {
        m = new Bye(replica);
      } else if (kind == KIND_UPDATE) {
        List<Entry> entries = entries(buf, true);
        if (entries.isEmpty()) {
          throw invalid("an update without entries");
        }
        m = new Update(replica, entries);
      } else if (kind == KIND_HEARTBEAT) {
        long seq = buf.getLong();
        if (seq < 0) {
          throw invalid("heartbeat seq is negative");
        }
        m = new Heartbeat(replica, seq, entries(buf, false));
      } else if (kind == WeightsCodec.KIND_WEIGHTS) {
        m = WeightsCodec.read(buf, replica);
      } else if (kind == BindingsCodec.KIND_BINDINGS) {
        m = BindingsCodec.read(buf, replica);
      } else {
        throw new MalformedException(
            MalformedException.Kind.UNKNOWN_KIND, "unknown load message kind " + kind);
      }
      if (buf.hasRemaining()) {
        throw new MalformedException(
            MalformedException.Kind.TRAILING_BYTES,
            buf.remaining() + " bytes after the load message");
      }
      return m;
    } catch (BufferUnderflowException e) {
      throw new MalformedException(MalformedException.Kind.TRUNCATED, "load message is truncated");
    }
  }

  private static List<Entry> entries(ByteBuffer buf, boolean picksAllowed)
      throws MalformedException {
    int n = Short.toUnsignedInt(buf.getShort());
    // A count the remaining bytes cannot hold is a lie, not an allocation.
    if (n > SharedLoadMessage.MAX_ENTRIES) {
      throw invalid("load message announces " + n + " entries");
    }
    if (n > buf.remaining() / MIN_ENTRY_BYTES) {
      throw new BufferUnderflowException();
    }
    List<Entry> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int flags = Byte.toUnsignedInt(buf.get());
      if ((flags & ~FLAG_PICK) != 0 || (!picksAllowed && flags != 0)) {
        throw invalid("entry flags " + flags);
      }
      boolean pick = flags == FLAG_PICK;
      int len = Short.toUnsignedInt(buf.getShort());
      if (len == 0 || len > SharedLoadMessage.MAX_WORKER_BYTES) {
        throw invalid("worker id of " + len + " bytes");
      }
      if (len > buf.remaining()) {
        throw new BufferUnderflowException();
      }
      WorkerId worker = worker(buf, len);
      long seq = buf.getLong();
      long active = buf.getLong();
      int inFlight = buf.getInt();
      double charge = pick ? buf.getDouble() : 0;
      if (seq < 0 || active < 0 || inFlight < 0) {
        throw invalid("negative seq, active blocks or in flight for " + worker);
      }
      if (!(charge >= 0 && charge <= SharedLoadMessage.MAX_CHARGE)) {
        throw invalid("charge " + charge + " for " + worker);
      }
      out.add(new Entry(worker, seq, active, inFlight, pick, charge));
    }
    return out;
  }

  private static WorkerId worker(ByteBuffer buf, int len) throws MalformedException {
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
      throw invalid("worker id is not UTF-8");
    }
    String id = chars.toString();
    if (id.isBlank()) {
      throw invalid("worker id is blank");
    }
    return WorkerId.of(id);
  }

  static MalformedException invalid(String message) {
    return new MalformedException(MalformedException.Kind.INVALID, message);
  }
}
