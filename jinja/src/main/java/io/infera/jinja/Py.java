package io.infera.jinja;

import io.infera.jinja.TemplateException.Kind;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * Python value semantics over Java objects, as Jinja2 sees them: the value types, conversion in,
 * truthiness, length, iteration and membership. Text ({@link PyText}), operators and numbers
 * ({@link PyOps}) and attribute access and calls ({@link PyAccess}) have classes of their own.
 *
 * <p>Mapping: {@code None} = null, {@code bool} = Boolean, {@code int} = Long (BigInteger when it
 * does not fit), {@code float} = Double, {@code str} = String (indexed by code point), {@code list}
 * = {@link List}, {@code tuple} = {@link Tuple}, {@code dict} = {@link Map} (insertion order), plus
 * Jinja's {@link Undefined}, {@link Namespace} and callables.
 */
final class Py {

  private Py() {}

  // ------------------------------------------------------------------ value types

  /** A Python tuple; {@code fields} names its items when it is a namedtuple (else null). */
  record Tuple(List<Object> items, List<String> fields, String typeName) {
    Tuple {
      items = java.util.Collections.unmodifiableList(new ArrayList<>(items));
    }

    Tuple(List<Object> items) {
      this(items, null, null);
    }

    static Tuple of(Object... items) {
      return new Tuple(java.util.Arrays.asList(items));
    }
  }

  /** Python's {@code range} object. */
  record Range(long start, long stop, long step) implements Iterable<Object> {
    long size() {
      if (step > 0) {
        return start >= stop ? 0 : (stop - start + step - 1) / step;
      }
      return start <= stop ? 0 : (start - stop - step - 1) / -step;
    }

    @Override
    public Iterator<Object> iterator() {
      return new Iterator<>() {
        long i = 0;

        @Override
        public boolean hasNext() {
          return i < size();
        }

        @Override
        public Object next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          return start + step * i++;
        }
      };
    }
  }

  /** Jinja's {@code namespace()}: attributes settable with {@code set ns.x = …}. */
  static final class Namespace {
    final Map<String, Object> attrs = new LinkedHashMap<>();
  }

  /** An object with Jinja-visible attributes (loop, cycler, …). */
  interface Attrs {
    /** The attribute's value, or an Undefined. */
    Object attr(String name);
  }

  /**
   * MarkupSafe's {@code Markup}: a str that is already escaped (from {@code escape} / {@code
   * safe}). Outside autoescaping it behaves as its text, except for the {@code escaped} test.
   */
  record Markup(String text) {
    @Override
    public String toString() {
      return text;
    }
  }

  /** Something templates can call. */
  interface Callable {
    Object call(List<Object> args, Map<String, Object> kwargs);
  }

  /**
   * Jinja's Undefined: prints as '', is false, iterates as empty, has length 0, and fails on
   * anything else. An unsafe attribute is an Undefined that fails with a SecurityError.
   */
  static final class Undefined {
    static final Object NO_OBJECT = new Object();
    final Object obj;
    final Object name;
    final String hint;
    final Kind failKind;

    Undefined(Object obj, Object name, String hint, Kind failKind) {
      this.obj = obj;
      this.name = name;
      this.hint = hint;
      this.failKind = failKind;
    }

    static Undefined named(String name) {
      return new Undefined(NO_OBJECT, name, null, Kind.UNDEFINED);
    }

    static Undefined of(Object obj, Object name) {
      return new Undefined(obj, name, null, Kind.UNDEFINED);
    }

    static Undefined hint(String hint) {
      return new Undefined(NO_OBJECT, null, hint, Kind.UNDEFINED);
    }

    String message() {
      if (hint != null) {
        return hint;
      }
      if (obj == NO_OBJECT) {
        return PyText.repr(name) + " is undefined";
      }
      if (!(name instanceof String)) {
        return PyText.objectTypeRepr(obj) + " has no element " + PyText.repr(name);
      }
      return PyText.repr(PyText.objectTypeRepr(obj)) + " has no attribute " + PyText.repr(name);
    }

    TemplateException fail() {
      return new TemplateException(failKind, message());
    }
  }

  static final Undefined UNDEFINED = Undefined.named("?");

  // ------------------------------------------------------------------ conversion in

  /**
   * Converts a host value (e.g. from a JSON parser or a caller's map) to a fresh mutable Python
   * value: numbers to Long/Double/BigInteger, collections copied.
   */
  static Object from(Object v) {
    if (v == null || v instanceof String || v instanceof Long || v instanceof Double) {
      return v;
    }
    if (v instanceof Boolean) {
      return v;
    }
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (v instanceof Float f) {
      return f.doubleValue();
    }
    if (v instanceof BigInteger b) {
      return b.bitLength() < 64 ? (Object) b.longValue() : b;
    }
    if (v instanceof BigDecimal d) {
      return d.doubleValue();
    }
    if (v instanceof Map<?, ?> m) {
      Map<Object, Object> out = new LinkedHashMap<>(Math.max(4, m.size() * 2));
      for (Map.Entry<?, ?> e : m.entrySet()) {
        out.put(from(e.getKey()), from(e.getValue()));
      }
      return out;
    }
    if (v instanceof Iterable<?> it && !(v instanceof Tuple) && !(v instanceof Range)) {
      List<Object> out = new ArrayList<>();
      for (Object o : it) {
        out.add(from(o));
      }
      return out;
    }
    if (v instanceof Object[] arr) {
      List<Object> out = new ArrayList<>(arr.length);
      for (Object o : arr) {
        out.add(from(o));
      }
      return out;
    }
    return v;
  }

  // ------------------------------------------------------------------ predicates

  /** Python's {@code str.isspace} for one code point. */
  static boolean isSpace(int c) {
    return (c >= 0x09 && c <= 0x0d)
        || (c >= 0x1c && c <= 0x20)
        || c == 0x85
        || c == 0xa0
        || c == 0x1680
        || (c >= 0x2000 && c <= 0x200a)
        || c == 0x2028
        || c == 0x2029
        || c == 0x202f
        || c == 0x205f
        || c == 0x3000;
  }

  /** A Markup's text; anything else as is. */
  static Object unwrap(Object v) {
    return v instanceof Markup m ? m.text() : v;
  }

  static boolean isUndefined(Object v) {
    return v instanceof Undefined;
  }

  static boolean isNumber(Object v) {
    return v instanceof Long
        || v instanceof Double
        || v instanceof BigInteger
        || v instanceof Boolean;
  }

  static boolean isInt(Object v) {
    return v instanceof Long || v instanceof BigInteger || v instanceof Boolean;
  }

  static boolean isSequence(Object v) {
    return v instanceof List || v instanceof Tuple || v instanceof String || v instanceof Range;
  }

  static boolean truthy(Object v) {
    v = unwrap(v);
    if (v == null || v instanceof Undefined) {
      return false;
    }
    if (v instanceof Boolean b) {
      return b;
    }
    if (v instanceof Long l) {
      return l != 0;
    }
    if (v instanceof Double d) {
      return d != 0.0;
    }
    if (v instanceof BigInteger b) {
      return b.signum() != 0;
    }
    if (v instanceof String s) {
      return !s.isEmpty();
    }
    if (v instanceof List<?> l) {
      return !l.isEmpty();
    }
    if (v instanceof Tuple t) {
      return !t.items().isEmpty();
    }
    if (v instanceof Map<?, ?> m) {
      return !m.isEmpty();
    }
    if (v instanceof Range r) {
      return r.size() > 0;
    }
    return true;
  }

  // ------------------------------------------------------------------ containers

  /** Characters or items, without Python's code-point counting: what a budget charges. */
  static long size(Object v) {
    v = unwrap(v);
    if (v instanceof String s) {
      return s.length();
    }
    if (v instanceof java.util.Collection<?> c) {
      return c.size();
    }
    if (v instanceof Tuple t) {
      return t.items().size();
    }
    if (v instanceof Map<?, ?> m) {
      return m.size();
    }
    if (v instanceof Range r) {
      return r.size();
    }
    return 0;
  }

  static int len(Object v) {
    v = unwrap(v);
    if (v instanceof String s) {
      return s.codePointCount(0, s.length());
    }
    if (v instanceof List<?> l) {
      return l.size();
    }
    if (v instanceof Tuple t) {
      return t.items().size();
    }
    if (v instanceof Map<?, ?> m) {
      return m.size();
    }
    if (v instanceof Range r) {
      return (int) r.size();
    }
    if (v instanceof Undefined) {
      return 0;
    }
    throw TemplateException.runtime("object of type '" + PyText.typeName(v) + "' has no len()");
  }

  /** Python iteration: lists, tuples, dict keys, string code points, ranges; Undefined empty. */
  static Iterable<?> iterate(Object v) {
    v = unwrap(v);
    if (v instanceof List<?> l) {
      return l;
    }
    if (v instanceof Tuple t) {
      return t.items();
    }
    if (v instanceof Map<?, ?> m) {
      return new ArrayList<>(m.keySet());
    }
    if (v instanceof String s) {
      return PyString.chars(s);
    }
    if (v instanceof Range r) {
      return r;
    }
    if (v instanceof Undefined) {
      return List.of();
    }
    throw TemplateException.runtime("'" + PyText.typeName(v) + "' object is not iterable");
  }

  static List<Object> toList(Object v) {
    Meter.current().items(size(v));
    List<Object> out = new ArrayList<>();
    for (Object o : iterate(v)) {
      out.add(o);
    }
    return out;
  }

  static boolean contains(Object container, Object item) {
    container = unwrap(container);
    item = unwrap(item);
    Meter.current().steps(size(container) / 16);
    if (container instanceof String s) {
      if (item instanceof String sub) {
        return s.contains(sub);
      }
      if (item instanceof Undefined u) {
        throw u.fail();
      }
      throw TemplateException.runtime(
          "'in <string>' requires string as left operand, not " + PyText.typeName(item));
    }
    if (container instanceof Map<?, ?> m) {
      return PyOps.findKey(m, item) != PyOps.NO_KEY;
    }
    if (container instanceof Undefined u) {
      return false;
    }
    for (Object o : iterate(container)) {
      if (PyOps.eq(o, item)) {
        return true;
      }
    }
    return false;
  }
}
