package io.infera.router.tokenize;

import java.util.List;
import java.util.Map;

/**
 * Python's {@code str()} of a parsed JSON value, for the few places where an engine writes a value
 * into the prompt that way (vLLM's Anthropic front end renders an assistant's {@code tool_result}
 * content as {@code "Tool result: " + str(content)}). Strings are themselves; lists and objects
 * take Python's {@code repr} form ({@code [{'type': 'text'}]}, {@code True}, {@code None}). Floats
 * follow Java's shortest form, which matches Python's for ordinary values. Pure.
 */
final class PythonText {

  private PythonText() {}

  static String str(Object v) {
    if (v instanceof String s) {
      return s;
    }
    StringBuilder sb = new StringBuilder();
    repr(v, sb);
    return sb.toString();
  }

  private static void repr(Object v, StringBuilder sb) {
    if (v == null) {
      sb.append("None");
    } else if (v instanceof Boolean b) {
      sb.append(b ? "True" : "False");
    } else if (v instanceof String s) {
      string(s, sb);
    } else if (v instanceof Double d) {
      sb.append(floatText(d));
    } else if (v instanceof Number n) {
      sb.append(n);
    } else if (v instanceof Map<?, ?> m) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) {
          sb.append(", ");
        }
        first = false;
        repr(String.valueOf(e.getKey()), sb);
        sb.append(": ");
        repr(e.getValue(), sb);
      }
      sb.append('}');
    } else if (v instanceof List<?> l) {
      sb.append('[');
      for (int i = 0; i < l.size(); i++) {
        if (i > 0) {
          sb.append(", ");
        }
        repr(l.get(i), sb);
      }
      sb.append(']');
    } else {
      sb.append(v);
    }
  }

  private static String floatText(double d) {
    if (Double.isNaN(d)) {
      return "nan";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? "inf" : "-inf";
    }
    if (d == Math.rint(d) && Math.abs(d) < 1e16) {
      return (long) d + ".0";
    }
    return Double.toString(d);
  }

  /** Python's string repr: single quotes unless the text has one and no double quote. */
  private static void string(String s, StringBuilder sb) {
    char quote = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
    sb.append(quote);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == quote || c == '\\') {
        sb.append('\\').append(c);
      } else if (c == '\n') {
        sb.append("\\n");
      } else if (c == '\r') {
        sb.append("\\r");
      } else if (c == '\t') {
        sb.append("\\t");
      } else if (c < 0x20 || c == 0x7f) {
        sb.append(String.format("\\x%02x", (int) c));
      } else {
        sb.append(c);
      }
    }
    sb.append(quote);
  }
}
