package io.infera.router.kv;

/** A KV-event payload or ZMQ message that cannot be decoded; the message names what was wrong. */
public final class EventDecodeException extends Exception {

  /** What kind of wrong: for metrics labels and tests. */
  public enum Kind {
    /** No bytes, or no frames. */
    EMPTY,
    /** The input ended inside a value. */
    TRUNCATED,
    /** A value had the wrong msgpack type. */
    WRONG_TYPE,
    /** A length or count larger than the input could hold. */
    OVERSIZED,
    /** A value of the right type but an impossible content (negative token, bad seq frame, …). */
    INVALID,
    /** Bytes left over after the batch. */
    TRAILING_BYTES
  }

  private final Kind kind;

  public EventDecodeException(Kind kind, String message) {
    super(message, null, false, false);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }

  /** Metric label: the kind in lower case. */
  public String label() {
    return kind.name().toLowerCase(java.util.Locale.ROOT);
  }
}
