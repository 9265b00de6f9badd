package io.infera.router.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses JSON into {@code LinkedHashMap<String,Object>}, {@code ArrayList<Object>}, String,
 * Long/BigInteger, Double, Boolean and null, and writes such values back. Thread-safe.
 */
public final class Json {

  /** Nesting deeper than this is refused (hostile input must not overflow the stack). */
  public static final int MAX_DEPTH = 256;

  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxNestingDepth(MAX_DEPTH)
                  .maxStringLength(Integer.MAX_VALUE)
                  .maxNumberLength(1000)
                  .build())
          .build();

  private Json() {}

  public static Object parse(String text) throws JsonException {
    try (JsonParser p = FACTORY.createParser(text)) {
      return parseWhole(p);
    } catch (IOException e) {
      throw wrap(e);
    }
  }

  public static Object parse(byte[] utf8) throws JsonException {
    try (JsonParser p = FACTORY.createParser(utf8)) {
      return parseWhole(p);
    } catch (IOException e) {
      throw wrap(e);
    }
  }

  private static Object parseWhole(JsonParser p) throws IOException, JsonException {
    JsonToken t = p.nextToken();
    if (t == null) {
      throw new JsonException("empty input: expected a JSON value");
    }
    Object v = value(p, t);
    if (p.nextToken() != null) {
      throw new JsonException(
          "unexpected data after the JSON value at line "
              + p.currentLocation().getLineNr()
              + ", column "
              + p.currentLocation().getColumnNr());
    }
    return v;
  }

  private static Object value(JsonParser p, JsonToken t) throws IOException {
    switch (t) {
      case START_OBJECT -> {
        Map<String, Object> m = new LinkedHashMap<>();
        for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
          String name = p.currentName();
          m.put(name, value(p, p.nextToken()));
        }
        return m;
      }
      case START_ARRAY -> {
        List<Object> l = new ArrayList<>();
        for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
          l.add(value(p, e));
        }
        return l;
      }
      case VALUE_STRING -> {
        return p.getText();
      }
      case VALUE_NUMBER_INT -> {
        return switch (p.getNumberType()) {
          case INT, LONG -> p.getLongValue();
          default -> {
            BigInteger b = p.getBigIntegerValue();
            yield b.bitLength() < 64 ? (Object) b.longValue() : b;
          }
        };
      }
      case VALUE_NUMBER_FLOAT -> {
        return p.getDoubleValue();
      }
      case VALUE_TRUE -> {
        return Boolean.TRUE;
      }
      case VALUE_FALSE -> {
        return Boolean.FALSE;
      }
      case VALUE_NULL -> {
        return null;
      }
      default -> throw new JsonParseException(p, "unexpected token " + t);
    }
  }

  private static JsonException wrap(IOException e) {
    if (e instanceof StreamConstraintsException) {
      return new JsonException("JSON too deep or too large: " + firstLine(e.getMessage()));
    }
    if (e instanceof JsonParseException jp) {
      return new JsonException(
          firstLine(jp.getOriginalMessage())
              + " at line "
              + jp.getLocation().getLineNr()
              + ", column "
              + jp.getLocation().getColumnNr());
    }
    return new JsonException("invalid JSON: " + firstLine(e.getMessage()));
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    String line = nl < 0 ? s : s.substring(0, nl);
    // Jackson appends source descriptions that say nothing to a user.
    return line.replaceAll("\\s*\\(start marker at \\[Source: [^\\]]*\\]\\)", "")
        .replaceAll("\\s*\\[Source: [^\\]]*\\]", "");
  }

  /** Compact JSON of a value built from maps, lists, strings, numbers, booleans and null. */
  public static String write(Object v) {
    StringBuilder sb = new StringBuilder();
    write(v, sb);
    return sb.toString();
  }

  public static void write(Object v, StringBuilder sb) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof String s) {
      quote(s, sb);
    } else if (v instanceof Boolean
        || v instanceof Long
        || v instanceof Integer
        || v instanceof BigInteger) {
      sb.append(v);
    } else if (v instanceof Double d) {
      if (d.isNaN() || d.isInfinite()) {
        sb.append("null");
      } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
        sb.append(d.longValue()).append(".0");
      } else {
        sb.append(d);
      }
    } else if (v instanceof Number n) {
      sb.append(n);
    } else if (v instanceof Map<?, ?> m) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        quote(String.valueOf(e.getKey()), sb);
        sb.append(':');
        write(e.getValue(), sb);
      }
      sb.append('}');
    } else if (v instanceof Iterable<?> it) {
      sb.append('[');
      boolean first = true;
      for (Object o : it) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        write(o, sb);
      }
      sb.append(']');
    } else if (v instanceof long[] arr) {
      sb.append('[');
      for (int i = 0; i < arr.length; i++) {
        sb.append(i > 0 ? "," : "").append(arr[i]);
      }
      sb.append(']');
    } else if (v instanceof int[] arr) {
      sb.append('[');
      for (int i = 0; i < arr.length; i++) {
        sb.append(i > 0 ? "," : "").append(arr[i]);
      }
      sb.append(']');
    } else {
      quote(v.toString(), sb);
    }
  }

  /** Appends {@code s} as a JSON string literal. */
  public static void quote(String s, StringBuilder sb) {
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
