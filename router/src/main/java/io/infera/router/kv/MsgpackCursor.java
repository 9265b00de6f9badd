package io.infera.router.kv;

import io.infera.router.kv.EventDecodeException.Kind;
import java.nio.charset.StandardCharsets;

/**
 * A bounds-checked msgpack reader over one byte array, for input we do not trust.
 *
 * <p>Every length and count is checked against the bytes that remain before anything is allocated
 * or looped over, so a header that announces two billion elements fails at once; skipping is
 * iterative, so deep nesting cannot overflow the stack. Every failure is an {@link
 * EventDecodeException} whose message names the field, the offset and what was found.
 */
final class MsgpackCursor {

  /** The msgpack value families, as far as the decoder cares. */
  enum Type {
    NIL,
    BOOLEAN,
    INTEGER,
    FLOAT,
    STRING,
    BINARY,
    ARRAY,
    MAP,
    EXTENSION,
    NEVER_USED
  }

  private final byte[] buf;
  private final int end;
  private int pos;

  MsgpackCursor(byte[] buf) {
    this(buf, 0, buf.length);
  }

  MsgpackCursor(byte[] buf, int offset, int length) {
    this.buf = buf;
    this.pos = offset;
    this.end = offset + length;
  }

  int position() {
    return pos;
  }

  /** Moves back (or forward) to {@code offset}, a position this cursor reported earlier. */
  void seek(int offset) {
    pos = offset;
  }

  /** A second cursor over the same bytes, starting at {@code offset}. */
  MsgpackCursor at(int offset) {
    return new MsgpackCursor(buf, offset, end - offset);
  }

  int remaining() {
    return end - pos;
  }

  /** The type of the next value. */
  Type peekType(String field) throws EventDecodeException {
    need(1, field);
    return typeOf(buf[pos] & 0xff);
  }

  static Type typeOf(int b) {
    if (b <= 0x7f || b >= 0xe0) {
      return Type.INTEGER;
    }
    if (b <= 0x8f) {
      return Type.MAP;
    }
    if (b <= 0x9f) {
      return Type.ARRAY;
    }
    if (b <= 0xbf) {
      return Type.STRING;
    }
    return switch (b) {
      case 0xc0 -> Type.NIL;
      case 0xc1 -> Type.NEVER_USED;
      case 0xc2, 0xc3 -> Type.BOOLEAN;
      case 0xc4, 0xc5, 0xc6 -> Type.BINARY;
      case 0xc7, 0xc8, 0xc9, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8 -> Type.EXTENSION;
      case 0xca, 0xcb -> Type.FLOAT;
      case 0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3 -> Type.INTEGER;
      case 0xd9, 0xda, 0xdb -> Type.STRING;
      case 0xdc, 0xdd -> Type.ARRAY;
      case 0xde, 0xdf -> Type.MAP;
      default -> throw new AssertionError("unreachable msgpack byte " + b);
    };
  }

  /** Consumes a nil and returns true, or returns false and consumes nothing. */
  boolean tryNil(String field) throws EventDecodeException {
    need(1, field);
    if ((buf[pos] & 0xff) == 0xc0) {
      pos++;
      return true;
    }
    return false;
  }

  int arrayHeader(String field) throws EventDecodeException {
    int b = byteAt(field);
    long n;
    if (b >= 0x90 && b <= 0x9f) {
      n = b & 0x0f;
      pos += 1;
    } else if (b == 0xdc) {
      need(3, field);
      n = u16(pos + 1);
      pos += 3;
    } else if (b == 0xdd) {
      need(5, field);
      n = u32(pos + 1);
      pos += 5;
    } else {
      throw wrongType(field, "an array", b);
    }
    if (n > remaining()) {
      throw new EventDecodeException(
          sizeKind(n),
          field
              + ": array header announces "
              + n
              + " elements but only "
              + remaining()
              + " bytes remain");
    }
    return (int) n;
  }

  int mapHeader(String field) throws EventDecodeException {
    int b = byteAt(field);
    long n;
    if (b >= 0x80 && b <= 0x8f) {
      n = b & 0x0f;
      pos += 1;
    } else if (b == 0xde) {
      need(3, field);
      n = u16(pos + 1);
      pos += 3;
    } else if (b == 0xdf) {
      need(5, field);
      n = u32(pos + 1);
      pos += 5;
    } else {
      throw wrongType(field, "a map", b);
    }
    if (2 * n > remaining()) {
      throw new EventDecodeException(
          sizeKind(2 * n),
          field
              + ": map header announces "
              + n
              + " entries but only "
              + remaining()
              + " bytes remain");
    }
    return (int) n;
  }

  String string(String field) throws EventDecodeException {
    int b = byteAt(field);
    long len;
    int header;
    if (b >= 0xa0 && b <= 0xbf) {
      len = b & 0x1f;
      header = 1;
    } else if (b == 0xd9) {
      need(2, field);
      len = buf[pos + 1] & 0xff;
      header = 2;
    } else if (b == 0xda) {
      need(3, field);
      len = u16(pos + 1);
      header = 3;
    } else if (b == 0xdb) {
      need(5, field);
      len = u32(pos + 1);
      header = 5;
    } else {
      throw wrongType(field, "a string", b);
    }
    checkPayload(field, "string", header, len);
    String s = new String(buf, pos + header, (int) len, StandardCharsets.UTF_8);
    pos += header + (int) len;
    return s;
  }

  /** A nil or a string. */
  String optString(String field) throws EventDecodeException {
    return tryNil(field) ? null : string(field);
  }

  /**
   * A 64-bit hash given as an integer (u64 or signed i64, kept as its 64 bits) or as bytes (the
   * last 8 bytes, big-endian; fewer bytes are zero-extended).
   */
  long hash(String field) throws EventDecodeException {
    int b = byteAt(field);
    Type t = typeOf(b);
    if (t == Type.INTEGER) {
      return integerBits(field);
    }
    if (t == Type.BINARY) {
      int header;
      long len;
      if (b == 0xc4) {
        need(2, field);
        len = buf[pos + 1] & 0xff;
        header = 2;
      } else if (b == 0xc5) {
        need(3, field);
        len = u16(pos + 1);
        header = 3;
      } else {
        need(5, field);
        len = u32(pos + 1);
        header = 5;
      }
      checkPayload(field, "byte string", header, len);
      int start = pos + header;
      int stop = start + (int) len;
      long h = 0;
      for (int i = Math.max(start, stop - 8); i < stop; i++) {
        h = (h << 8) | (buf[i] & 0xff);
      }
      pos = stop;
      return h;
    }
    throw wrongType(field, "an integer or bytes", b);
  }

  /** A nil or a hash. */
  Long optHash(String field) throws EventDecodeException {
    return tryNil(field) ? null : hash(field);
  }

  /** An integer in the signed 64-bit range. */
  long int64(String field) throws EventDecodeException {
    int b = byteAt(field);
    if (b == 0xcf) {
      need(9, field);
      long v = u64(pos + 1);
      if (v < 0) {
        throw new EventDecodeException(
            Kind.INVALID,
            field + ": " + Long.toUnsignedString(v) + " is out of the signed 64-bit range");
      }
      pos += 9;
      return v;
    }
    if (typeOf(b) != Type.INTEGER) {
      throw wrongType(field, "an integer", b);
    }
    return integerBits(field);
  }

  /** A nil or a signed 64-bit integer. */
  Long optInt64(String field) throws EventDecodeException {
    return tryNil(field) ? null : int64(field);
  }

  /** An integer in {@code [min, max]}. */
  int intInRange(String field, long min, long max) throws EventDecodeException {
    int at = pos;
    long v = int64(field);
    if (v < min || v > max) {
      pos = at;
      throw new EventDecodeException(
          Kind.INVALID, field + ": " + v + " is outside [" + min + ", " + max + "]");
    }
    return (int) v;
  }

  /** A nil or an integer in {@code [min, max]}. */
  Integer optIntInRange(String field, long min, long max) throws EventDecodeException {
    return tryNil(field) ? null : intInRange(field, min, max);
  }

  /** A token id: an integer in {@code [0, 2^32)}, kept as its 32 bits. */
  int token(String field) throws EventDecodeException {
    long v = int64(field);
    if (v < 0 || v > 0xffff_ffffL) {
      throw new EventDecodeException(
          Kind.INVALID, field + ": token id " + v + " is outside [0, 4294967295]");
    }
    return (int) v;
  }

  /** A float or an integer, as a double. */
  double number(String field) throws EventDecodeException {
    int b = byteAt(field);
    if (b == 0xcb) {
      need(9, field);
      double d = Double.longBitsToDouble(u64(pos + 1));
      pos += 9;
      return d;
    }
    if (b == 0xca) {
      need(5, field);
      double d = Float.intBitsToFloat((int) u32(pos + 1));
      pos += 5;
      return d;
    }
    if (typeOf(b) == Type.INTEGER) {
      return (double) integerBits(field);
    }
    throw wrongType(field, "a number", b);
  }

  /** Skips one value of any type, however deeply nested, without recursion. */
  void skip(String field) throws EventDecodeException {
    long pending = 1;
    while (pending > 0) {
      pending--;
      int b = byteAt(field);
      Type t = typeOf(b);
      switch (t) {
        case NIL, BOOLEAN -> pos += 1;
        case INTEGER -> integerBits(field);
        case FLOAT -> {
          int size = b == 0xca ? 5 : 9;
          need(size, field);
          pos += size;
        }
        case STRING -> string(field);
        case BINARY -> hash(field);
        case ARRAY -> pending += arrayHeader(field);
        case MAP -> pending += 2L * mapHeader(field);
        case EXTENSION -> skipExtension(field, b);
        case NEVER_USED ->
            throw new EventDecodeException(
                Kind.INVALID, field + ": byte 0xc1 at offset " + pos + " is not valid msgpack");
      }
    }
  }

  private void skipExtension(String field, int b) throws EventDecodeException {
    long len;
    int header;
    switch (b) {
      case 0xd4 -> {
        len = 1;
        header = 2;
      }
      case 0xd5 -> {
        len = 2;
        header = 2;
      }
      case 0xd6 -> {
        len = 4;
        header = 2;
      }
      case 0xd7 -> {
        len = 8;
        header = 2;
      }
      case 0xd8 -> {
        len = 16;
        header = 2;
      }
      case 0xc7 -> {
        need(2, field);
        len = buf[pos + 1] & 0xff;
        header = 3;
      }
      case 0xc8 -> {
        need(3, field);
        len = u16(pos + 1);
        header = 4;
      }
      default -> {
        need(5, field);
        len = u32(pos + 1);
        header = 6;
      }
    }
    checkPayload(field, "extension", header, len);
    pos += header + (int) len;
  }

  /** Reads any msgpack integer and returns its 64 bits (u64 above 2^63 wraps to negative). */
  private long integerBits(String field) throws EventDecodeException {
    int b = byteAt(field);
    if (b <= 0x7f) {
      pos += 1;
      return b;
    }
    if (b >= 0xe0) {
      pos += 1;
      return (byte) b;
    }
    switch (b) {
      case 0xcc -> {
        need(2, field);
        long v = buf[pos + 1] & 0xff;
        pos += 2;
        return v;
      }
      case 0xcd -> {
        need(3, field);
        long v = u16(pos + 1);
        pos += 3;
        return v;
      }
      case 0xce -> {
        need(5, field);
        long v = u32(pos + 1);
        pos += 5;
        return v;
      }
      case 0xcf, 0xd3 -> {
        need(9, field);
        long v = u64(pos + 1);
        pos += 9;
        return v;
      }
      case 0xd0 -> {
        need(2, field);
        long v = buf[pos + 1];
        pos += 2;
        return v;
      }
      case 0xd1 -> {
        need(3, field);
        long v = (short) u16(pos + 1);
        pos += 3;
        return v;
      }
      case 0xd2 -> {
        need(5, field);
        long v = (int) u32(pos + 1);
        pos += 5;
        return v;
      }
      default -> throw wrongType(field, "an integer", b);
    }
  }

  private int byteAt(String field) throws EventDecodeException {
    need(1, field);
    return buf[pos] & 0xff;
  }

  private void need(int n, String field) throws EventDecodeException {
    if (end - pos < n) {
      throw new EventDecodeException(
          Kind.TRUNCATED,
          field + ": input ends at offset " + end + " inside a value starting at offset " + pos);
    }
  }

  private void checkPayload(String field, String what, int header, long len)
      throws EventDecodeException {
    if (len > (long) remaining() - header) {
      throw new EventDecodeException(
          sizeKind(len),
          field
              + ": "
              + what
              + " header announces "
              + len
              + " bytes but only "
              + Math.max(0, remaining() - header)
              + " remain");
    }
  }

  /**
   * A size that cannot fit in what remains: larger than the whole input is {@code OVERSIZED} (a
   * corrupt or hostile header), otherwise the input was cut short ({@code TRUNCATED}).
   */
  private Kind sizeKind(long announced) {
    return announced > buf.length ? Kind.OVERSIZED : Kind.TRUNCATED;
  }

  private EventDecodeException wrongType(String field, String expected, int b) {
    return new EventDecodeException(
        Kind.WRONG_TYPE,
        field
            + ": expected "
            + expected
            + ", got "
            + typeOf(b).name().toLowerCase(java.util.Locale.ROOT)
            + " at offset "
            + pos);
  }

  private long u16(int at) {
    return ((buf[at] & 0xffL) << 8) | (buf[at + 1] & 0xffL);
  }

  private long u32(int at) {
    return ((buf[at] & 0xffL) << 24)
        | ((buf[at + 1] & 0xffL) << 16)
        | ((buf[at + 2] & 0xffL) << 8)
        | (buf[at + 3] & 0xffL);
  }

  private long u64(int at) {
    return (u32(at) << 32) | u32(at + 4);
  }
}
