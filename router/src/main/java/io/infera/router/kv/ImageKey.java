package io.infera.router.kv;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import net.openhft.hashing.Access;
import net.openhft.hashing.LongHashFunction;

/**
 * The key of one image (or audio clip) of a request for image affinity (docs/routing.md,
 * "Multimodal requests"): XXH3-64, seed 0, over the UTF-8 bytes of its reference — the http(s) URL,
 * or the whole {@code data:} URI, whose base64 payload makes the key a hash of the content.
 * Router-internal: never compared with an engine's hashes.
 *
 * <p>An ASCII reference (every {@code data:} URI, almost every URL) is hashed straight from its
 * characters, without copying it into a byte array; only a reference with other characters is
 * encoded first. Thread-safe, stateless.
 */
public final class ImageKey {

  private static final LongHashFunction XX3 = LongHashFunction.xx3();

  private ImageKey() {}

  /** The key of {@code reference}. */
  public static long of(CharSequence reference) {
    if (isAscii(reference)) {
      return XX3.hash(reference, AsciiAccess.INSTANCE, 0, reference.length());
    }
    return XX3.hashBytes(reference.toString().getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The key of the concatenation of {@code parts} (e.g. {@code "data:", type, ";base64,",
   * payload}), equal to {@link #of} of the joined string, without joining them.
   */
  public static long ofJoined(CharSequence... parts) {
    return of(new Joined(parts));
  }

  private static boolean isAscii(CharSequence s) {
    for (int i = 0, n = s.length(); i < n; i++) {
      if (s.charAt(i) >= 0x80) {
        return false;
      }
    }
    return true;
  }

  /** Reads an ASCII char sequence as its bytes, little-endian. */
  private static final class AsciiAccess extends Access<CharSequence> {
    static final AsciiAccess INSTANCE = new AsciiAccess();

    @Override
    public int getByte(CharSequence input, long offset) {
      return (byte) input.charAt((int) offset);
    }

    @Override
    public int getUnsignedByte(CharSequence input, long offset) {
      return input.charAt((int) offset) & 0xFF;
    }

    @Override
    public int getShort(CharSequence input, long offset) {
      return (short) getUnsignedShort(input, offset);
    }

    @Override
    public int getUnsignedShort(CharSequence input, long offset) {
      int i = (int) offset;
      return (input.charAt(i) & 0xFF) | (input.charAt(i + 1) & 0xFF) << 8;
    }

    @Override
    public int getInt(CharSequence input, long offset) {
      int i = (int) offset;
      return (input.charAt(i) & 0xFF)
          | (input.charAt(i + 1) & 0xFF) << 8
          | (input.charAt(i + 2) & 0xFF) << 16
          | (input.charAt(i + 3) & 0xFF) << 24;
    }

    @Override
    public long getUnsignedInt(CharSequence input, long offset) {
      return getInt(input, offset) & 0xFFFF_FFFFL;
    }

    @Override
    public long getLong(CharSequence input, long offset) {
      return (getInt(input, offset) & 0xFFFF_FFFFL) | ((long) getInt(input, offset + 4)) << 32;
    }

    @Override
    public ByteOrder byteOrder(CharSequence input) {
      return ByteOrder.LITTLE_ENDIAN;
    }

    @Override
    protected Access<CharSequence> reverseAccess() {
      // XXH3 reads little-endian, the order this access already has.
      throw new UnsupportedOperationException("big-endian access to an ASCII reference");
    }
  }

  /** A read-only view of several char sequences one after the other. */
  private static final class Joined implements CharSequence {
    private final CharSequence[] parts;
    private final int length;

    Joined(CharSequence[] parts) {
      this.parts = parts.clone();
      long n = 0;
      for (CharSequence p : this.parts) {
        n += p.length();
      }
      if (n > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("joined reference too long");
      }
      this.length = (int) n;
    }

    @Override
    public int length() {
      return length;
    }

    @Override
    public char charAt(int index) {
      int i = index;
      for (CharSequence p : parts) {
        if (i < p.length()) {
          return p.charAt(i);
        }
        i -= p.length();
      }
      throw new IndexOutOfBoundsException(index);
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      return toString().subSequence(start, end);
    }

    @Override
    public String toString() {
      StringBuilder b = new StringBuilder(length);
      for (CharSequence p : parts) {
        b.append(p);
      }
      return b.toString();
    }
  }
}
