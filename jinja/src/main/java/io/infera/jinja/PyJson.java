package io.infera.jinja;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Python's {@code json.dumps(x, ensure_ascii, indent, separators, sort_keys)}: the {@code tojson}
 * transformers installs for chat templates (no HTML escaping, unlike Jinja's own).
 */
final class PyJson {

  private PyJson() {}

  /**
   * @param indent null (one line), a number of spaces, or an indent string
   * @param separators null for the defaults, else (item separator, key separator)
   */
  static String dumps(
      Object v, boolean ensureAscii, Object indent, List<String> separators, boolean sortKeys) {
    String indentStr = null;
    if (indent instanceof String s) {
      indentStr = s;
    } else if (indent != null && Py.isInt(indent)) {
      indentStr = PyString.repeat(" ", PyOps.toLong(indent));
    }
    String itemSep = indentStr != null ? "," : ", ";
    String keySep = ": ";
    if (separators != null) {
      itemSep = separators.get(0);
      keySep = separators.get(1);
    }
    StringBuilder sb = new StringBuilder();
    new PyJson.Writer(ensureAscii, indentStr, itemSep, keySep, sortKeys, Meter.current())
        .write(v, sb, 0);
    return sb.toString();
  }

  /** Checks the buffer before every piece: shared sublists or a huge indent explode the text. */
  private record Writer(
      boolean ensureAscii,
      String indent,
      String itemSep,
      String keySep,
      boolean sortKeys,
      Meter meter) {

    void write(Object v, StringBuilder sb, int depth) {
      meter.step();
      meter.grow(sb.length(), Math.max(itemSep.length(), keySep.length()) + 8);
      if (v == null) {
        sb.append("null");
      } else if (v instanceof Boolean b) {
        sb.append(b ? "true" : "false");
      } else if (v instanceof Long || v instanceof java.math.BigInteger) {
        sb.append(v);
      } else if (v instanceof Double d) {
        sb.append(floatJson(d));
      } else if (v instanceof String s) {
        string(s, sb);
      } else if (v instanceof Py.Markup m) {
        string(m.text(), sb);
      } else if (v instanceof List<?> || v instanceof Py.Tuple) {
        List<?> l = v instanceof Py.Tuple t ? t.items() : (List<?>) v;
        if (l.isEmpty()) {
          sb.append("[]");
          return;
        }
        sb.append('[');
        for (int i = 0; i < l.size(); i++) {
          if (i > 0) {
            sb.append(itemSep);
          }
          newline(sb, depth + 1);
          write(l.get(i), sb, depth + 1);
        }
        newline(sb, depth);
        sb.append(']');
      } else if (v instanceof Map<?, ?> m) {
        if (m.isEmpty()) {
          sb.append("{}");
          return;
        }
        List<Map.Entry<String, Object>> entries = new ArrayList<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
          entries.add(Map.entry(key(e.getKey()), e.getValue() == null ? NULL : e.getValue()));
        }
        if (sortKeys) {
          entries.sort((a, b) -> PyString.compare(a.getKey(), b.getKey()));
        }
        sb.append('{');
        boolean first = true;
        for (Map.Entry<String, Object> e : entries) {
          if (!first) {
            sb.append(itemSep);
          }
          first = false;
          newline(sb, depth + 1);
          string(e.getKey(), sb);
          sb.append(keySep);
          write(e.getValue() == NULL ? null : e.getValue(), sb, depth + 1);
        }
        newline(sb, depth);
        sb.append('}');
      } else {
        throw TemplateException.runtime(
            "Object of type " + PyText.typeName(v) + " is not JSON serializable");
      }
    }

    private void newline(StringBuilder sb, int depth) {
      if (indent != null) {
        meter.grow(sb.length(), Meter.times(indent.length(), depth) + 1);
        sb.append('\n').append(PyString.repeat(indent, depth));
      }
    }

    private static String key(Object k) {
      if (k instanceof String s) {
        return s;
      }
      if (k == null) {
        return "null";
      }
      if (k instanceof Boolean b) {
        return b ? "true" : "false";
      }
      if (k instanceof Long || k instanceof java.math.BigInteger) {
        return k.toString();
      }
      if (k instanceof Double d) {
        return floatJson(d);
      }
      throw TemplateException.runtime(
          "keys must be str, int, float, bool or None, not " + PyText.typeName(k));
    }

    private void string(String s, StringBuilder sb) {
      // At most 6 characters per character (\\uXXXX) when escaping to ASCII, else 2.
      meter.grow(sb.length(), Meter.times(s.length(), ensureAscii ? 6 : 2) + 2);
      sb.append('"');
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        switch (c) {
          case '"' -> sb.append("\\\"");
          case '\\' -> sb.append("\\\\");
          case '\n' -> sb.append("\\n");
          case '\r' -> sb.append("\\r");
          case '\t' -> sb.append("\\t");
          case '\b' -> sb.append("\\b");
          case '\f' -> sb.append("\\f");
          default -> {
            if (c < 0x20 || (ensureAscii && c > 0x7e)) {
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

  private static final Object NULL = new Object();

  private static String floatJson(double d) {
    if (Double.isNaN(d)) {
      return "NaN";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? "Infinity" : "-Infinity";
    }
    return PyFormat.floatRepr(d);
  }
}
