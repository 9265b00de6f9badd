package io.infera.router.cli;

import io.infera.router.kv.BlockHasher;

/** A tiny writer for one flat JSON object with keys in insertion order. */
final class Json {

  private final StringBuilder sb = new StringBuilder(128).append('{');
  private boolean first = true;

  Json field(String key, String value) {
    key(key);
    if (value == null) {
      sb.append("null");
    } else {
      quote(value);
    }
    return this;
  }

  Json field(String key, Number value) {
    key(key);
    sb.append(value == null ? "null" : value.toString());
    return this;
  }

  Json hashes(String key, long[] hashes) {
    key(key);
    sb.append('[');
    for (int i = 0; i < hashes.length; i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append('"').append(BlockHasher.hex(hashes[i])).append('"');
    }
    sb.append(']');
    return this;
  }

  Json ints(String key, int[] values) {
    key(key);
    sb.append('[');
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append(Integer.toUnsignedString(values[i]));
    }
    sb.append(']');
    return this;
  }

  String end() {
    return sb.append('}').toString();
  }

  private void key(String key) {
    if (!first) {
      sb.append(',');
    }
    first = false;
    quote(key);
    sb.append(':');
  }

  private void quote(String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}
