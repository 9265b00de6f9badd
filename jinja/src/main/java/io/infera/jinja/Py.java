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
 * Python value semantics over Java objects, as Jinja2 sees them.
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
        return repr(name) + " is undefined";
      }
      if (!(name instanceof String)) {
        return objectTypeRepr(obj) + " has no element " + repr(name);
      }
      return repr(objectTypeRepr(obj)) + " has no attribute " + repr(name);
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

  // ------------------------------------------------------------------ str / repr

  /** Python's {@code str(v)}; Undefined is ''. */
  static String str(Object v) {
    if (v instanceof String s) {
      return s;
    }
    if (v instanceof Markup m) {
      return m.text();
    }
    if (v instanceof Undefined) {
      return "";
    }
    return repr(v);
  }

  /** Python's {@code repr(v)}. */
  static String repr(Object v) {
    StringBuilder sb = new StringBuilder();
    repr(v, sb);
    return sb.toString();
  }

  static void repr(Object v, StringBuilder sb) {
    if (v == null) {
      sb.append("None");
    } else if (v instanceof Boolean b) {
      sb.append(b ? "True" : "False");
    } else if (v instanceof Long || v instanceof BigInteger) {
      sb.append(v);
    } else if (v instanceof Double d) {
      sb.append(PyFormat.floatRepr(d));
    } else if (v instanceof String s) {
      PyString.repr(s, sb);
    } else if (v instanceof Markup m) {
      sb.append("Markup(");
      PyString.repr(m.text(), sb);
      sb.append(')');
    } else if (v instanceof List<?> l) {
      sb.append('[');
      for (int i = 0; i < l.size(); i++) {
        if (i > 0) {
          sb.append(", ");
        }
        repr(l.get(i), sb);
      }
      sb.append(']');
    } else if (v instanceof Tuple t && t.fields() != null) {
      sb.append(t.typeName()).append('(');
      for (int i = 0; i < t.items().size(); i++) {
        if (i > 0) {
          sb.append(", ");
        }
        sb.append(t.fields().get(i)).append('=');
        repr(t.items().get(i), sb);
      }
      sb.append(')');
    } else if (v instanceof Tuple t) {
      List<Object> l = t.items();
      sb.append('(');
      for (int i = 0; i < l.size(); i++) {
        if (i > 0) {
          sb.append(", ");
        }
        repr(l.get(i), sb);
      }
      sb.append(l.size() == 1 ? ",)" : ")");
    } else if (v instanceof Map<?, ?> m) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) {
          sb.append(", ");
        }
        first = false;
        repr(e.getKey(), sb);
        sb.append(": ");
        repr(e.getValue(), sb);
      }
      sb.append('}');
    } else if (v instanceof Range r) {
      sb.append("range(").append(r.start()).append(", ").append(r.stop());
      if (r.step() != 1) {
        sb.append(", ").append(r.step());
      }
      sb.append(')');
    } else if (v instanceof Undefined) {
      sb.append("Undefined");
    } else if (v instanceof Namespace ns) {
      sb.append("<Namespace ");
      repr(ns.attrs, sb);
      sb.append('>');
    } else {
      sb.append('<').append(typeName(v)).append(" object>");
    }
  }

  /** Python's {@code type(v).__name__}. */
  static String typeName(Object v) {
    if (v == null) {
      return "NoneType";
    }
    if (v instanceof Boolean) {
      return "bool";
    }
    if (v instanceof Long || v instanceof BigInteger) {
      return "int";
    }
    if (v instanceof Double) {
      return "float";
    }
    if (v instanceof String) {
      return "str";
    }
    if (v instanceof List) {
      return "list";
    }
    if (v instanceof Tuple) {
      return "tuple";
    }
    if (v instanceof Map) {
      return "dict";
    }
    if (v instanceof Range) {
      return "range";
    }
    if (v instanceof Markup) {
      return "Markup";
    }
    if (v instanceof Undefined) {
      return "Undefined";
    }
    if (v instanceof Namespace) {
      return "Namespace";
    }
    if (v instanceof Renderer.Loop) {
      return "LoopContext";
    }
    if (v instanceof Callable) {
      return "function";
    }
    return v.getClass().getSimpleName();
  }

  /** Jinja's {@code object_type_repr}. */
  static String objectTypeRepr(Object v) {
    if (v == null) {
      return "None";
    }
    return switch (typeName(v)) {
      case "Namespace" -> "jinja2.utils.Namespace object";
      case "LoopContext" -> "jinja2.runtime.LoopContext object";
      default -> typeName(v) + " object";
    };
  }

  // ------------------------------------------------------------------ equality and order

  static boolean eq(Object a, Object b) {
    a = unwrap(a);
    b = unwrap(b);
    if (a == b) {
      return true;
    }
    if (a == null || b == null) {
      return false;
    }
    if (a instanceof Undefined || b instanceof Undefined) {
      return a instanceof Undefined && b instanceof Undefined;
    }
    if (isNumber(a) && isNumber(b)) {
      return compareNumbers(a, b) == 0;
    }
    if (a instanceof String s) {
      return s.equals(b);
    }
    if (a instanceof List<?> la && b instanceof List<?> lb) {
      return seqEq(la, lb);
    }
    if (a instanceof Tuple ta && b instanceof Tuple tb) {
      return seqEq(ta.items(), tb.items());
    }
    if (a instanceof Map<?, ?> ma && b instanceof Map<?, ?> mb) {
      if (ma.size() != mb.size()) {
        return false;
      }
      for (Map.Entry<?, ?> e : ma.entrySet()) {
        Object key = findKey(mb, e.getKey());
        if (key == NO_KEY || !eq(e.getValue(), mb.get(key))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof Range ra && b instanceof Range rb) {
      return ra.equals(rb);
    }
    return a.equals(b);
  }

  private static boolean seqEq(List<?> a, List<?> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!eq(a.get(i), b.get(i))) {
        return false;
      }
    }
    return true;
  }

  static final Object NO_KEY = new Object();

  /** The key of {@code m} equal (Python-wise) to {@code key}, or {@link #NO_KEY}. */
  static Object findKey(Map<?, ?> m, Object key) {
    if (m.containsKey(key)) {
      return key;
    }
    if (isNumber(key)) {
      for (Object k : m.keySet()) {
        if (isNumber(k) && eq(k, key)) {
          return k;
        }
      }
    }
    return NO_KEY;
  }

  /** Python ordering ({@code <}); a TypeError for unorderable pairs. */
  static int compare(Object a, Object b, String op) {
    a = unwrap(a);
    b = unwrap(b);
    if (isNumber(a) && isNumber(b)) {
      return compareNumbers(a, b);
    }
    if (a instanceof String sa && b instanceof String sb) {
      return PyString.compare(sa, sb);
    }
    if (a instanceof List<?> la && b instanceof List<?> lb) {
      return compareSeq(la, lb, op);
    }
    if (a instanceof Tuple ta && b instanceof Tuple tb) {
      return compareSeq(ta.items(), tb.items(), op);
    }
    if (a instanceof Undefined u) {
      throw u.fail();
    }
    if (b instanceof Undefined u) {
      throw u.fail();
    }
    throw TemplateException.runtime(
        "'"
            + op
            + "' not supported between instances of '"
            + typeName(a)
            + "' and '"
            + typeName(b)
            + "'");
  }

  private static int compareSeq(List<?> a, List<?> b, String op) {
    int n = Math.min(a.size(), b.size());
    for (int i = 0; i < n; i++) {
      if (!eq(a.get(i), b.get(i))) {
        return compare(a.get(i), b.get(i), op);
      }
    }
    return Integer.compare(a.size(), b.size());
  }

  static int compareNumbers(Object a, Object b) {
    if (a instanceof Double || b instanceof Double) {
      double x = toDouble(a);
      double y = toDouble(b);
      if (Double.isNaN(x) || Double.isNaN(y)) {
        return x == y ? 0 : 2; // NaN: never equal; callers treat 2 as "unordered"
      }
      return Double.compare(x == 0.0 ? 0.0 : x, y == 0.0 ? 0.0 : y);
    }
    return toBig(a).compareTo(toBig(b));
  }

  // ------------------------------------------------------------------ numbers

  static double toDouble(Object v) {
    if (v instanceof Boolean b) {
      return b ? 1 : 0;
    }
    return ((Number) v).doubleValue();
  }

  static BigInteger toBig(Object v) {
    if (v instanceof BigInteger b) {
      return b;
    }
    if (v instanceof Boolean b) {
      return b ? BigInteger.ONE : BigInteger.ZERO;
    }
    return BigInteger.valueOf(((Number) v).longValue());
  }

  static Object norm(BigInteger b) {
    return b.bitLength() < 64 ? (Object) b.longValue() : b;
  }

  static long toLong(Object v) {
    if (v instanceof Boolean b) {
      return b ? 1 : 0;
    }
    if (v instanceof Long l) {
      return l;
    }
    if (v instanceof BigInteger b) {
      return b.longValue();
    }
    throw TemplateException.runtime(
        "'" + typeName(v) + "' object cannot be interpreted as an integer");
  }

  static Object arith(String op, Object a, Object b) {
    if (op.equals("+") && a instanceof Markup m && (b instanceof String || b instanceof Markup)) {
      return new Markup(
          m.text() + (b instanceof Markup mb ? mb.text() : Filters.escape((String) b)));
    }
    a = unwrap(a);
    b = unwrap(b);
    if (a instanceof Undefined u) {
      throw u.fail();
    }
    if (b instanceof Undefined u) {
      throw u.fail();
    }
    if (isNumber(a) && isNumber(b)) {
      return numeric(op, a, b);
    }
    switch (op) {
      case "+" -> {
        if (a instanceof String x && b instanceof String y) {
          return x + y;
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
          List<Object> out = new ArrayList<>(x);
          out.addAll(y);
          return out;
        }
        if (a instanceof Tuple x && b instanceof Tuple y) {
          List<Object> out = new ArrayList<>(x.items());
          out.addAll(y.items());
          return new Tuple(out);
        }
      }
      case "*" -> {
        if (isInt(a) && !isNumber(b)) {
          return arith("*", b, a);
        }
        if (isInt(b)) {
          long n = Math.max(0, toLong(b));
          long size =
              a instanceof String s0
                  ? s0.length()
                  : a instanceof List<?> l0
                      ? l0.size()
                      : a instanceof Tuple t0 ? t0.items().size() : 0;
          if (size > 0 && n > Renderer.MAX_OUTPUT / size) {
            throw TemplateException.runtime("repetition result too large");
          }
          if (a instanceof String s) {
            return PyString.repeat(s, n);
          }
          if (a instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            for (long i = 0; i < n; i++) {
              out.addAll(l);
            }
            return out;
          }
          if (a instanceof Tuple t) {
            List<Object> out = new ArrayList<>();
            for (long i = 0; i < n; i++) {
              out.addAll(t.items());
            }
            return new Tuple(out);
          }
        }
      }
      case "%" -> {
        if (a instanceof String s) {
          return PyFormat.percent(s, b);
        }
      }
      default -> {}
    }
    throw TemplateException.runtime(
        "unsupported operand type(s) for "
            + op
            + ": '"
            + typeName(a)
            + "' and '"
            + typeName(b)
            + "'");
  }

  private static Object numeric(String op, Object a, Object b) {
    boolean floats = a instanceof Double || b instanceof Double;
    if (op.equals("/")) {
      double y = toDouble(b);
      if (y == 0) {
        throw TemplateException.runtime(floats ? "float division by zero" : "division by zero");
      }
      if (!floats && (toBig(a).bitLength() > 53 || toBig(b).bitLength() > 53)) {
        return new BigDecimal(toBig(a))
            .divide(new BigDecimal(toBig(b)), new java.math.MathContext(40))
            .doubleValue();
      }
      return toDouble(a) / y;
    }
    if (floats) {
      double x = toDouble(a);
      double y = toDouble(b);
      return switch (op) {
        case "+" -> x + y;
        case "-" -> x - y;
        case "*" -> x * y;
        case "//" -> {
          if (y == 0) {
            throw TemplateException.runtime("float floor division by zero");
          }
          yield Math.floor(x / y);
        }
        case "%" -> {
          if (y == 0) {
            throw TemplateException.runtime("float modulo");
          }
          double m = x % y;
          if (m != 0 && ((m < 0) != (y < 0))) {
            m += y;
          } else if (m == 0) {
            m = Math.copySign(0.0, y);
          }
          yield m;
        }
        case "**" -> Math.pow(x, y);
        default -> throw new IllegalArgumentException(op);
      };
    }
    BigInteger x = toBig(a);
    BigInteger y = toBig(b);
    return switch (op) {
      case "+" -> norm(x.add(y));
      case "-" -> norm(x.subtract(y));
      case "*" -> norm(x.multiply(y));
      case "//" -> {
        if (y.signum() == 0) {
          throw TemplateException.runtime("integer division or modulo by zero");
        }
        BigInteger[] qr = x.divideAndRemainder(y);
        BigInteger q = qr[0];
        if (qr[1].signum() != 0 && (qr[1].signum() != y.signum())) {
          q = q.subtract(BigInteger.ONE);
        }
        yield norm(q);
      }
      case "%" -> {
        if (y.signum() == 0) {
          throw TemplateException.runtime("integer division or modulo by zero");
        }
        BigInteger m = x.mod(y.abs());
        if (y.signum() < 0 && m.signum() != 0) {
          m = m.add(y);
        }
        yield norm(m);
      }
      case "**" -> {
        if (y.signum() < 0) {
          yield Math.pow(x.doubleValue(), y.doubleValue());
        }
        if (y.bitLength() > 31) {
          throw TemplateException.runtime("exponent too large");
        }
        yield norm(x.pow(y.intValue()));
      }
      default -> throw new IllegalArgumentException(op);
    };
  }

  static Object negate(Object v) {
    if (v instanceof Undefined u) {
      throw u.fail();
    }
    if (v instanceof Double d) {
      return -d;
    }
    if (isInt(v)) {
      return norm(toBig(v).negate());
    }
    throw TemplateException.runtime("bad operand type for unary -: '" + typeName(v) + "'");
  }

  static Object plus(Object v) {
    if (v instanceof Undefined u) {
      throw u.fail();
    }
    if (v instanceof Boolean b) {
      return b ? 1L : 0L;
    }
    if (isNumber(v)) {
      return v;
    }
    throw TemplateException.runtime("bad operand type for unary +: '" + typeName(v) + "'");
  }

  // ------------------------------------------------------------------ containers

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
    throw TemplateException.runtime("object of type '" + typeName(v) + "' has no len()");
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
    throw TemplateException.runtime("'" + typeName(v) + "' object is not iterable");
  }

  static List<Object> toList(Object v) {
    List<Object> out = new ArrayList<>();
    for (Object o : iterate(v)) {
      out.add(o);
    }
    return out;
  }

  static boolean contains(Object container, Object item) {
    container = unwrap(container);
    item = unwrap(item);
    if (container instanceof String s) {
      if (item instanceof String sub) {
        return s.contains(sub);
      }
      if (item instanceof Undefined u) {
        throw u.fail();
      }
      throw TemplateException.runtime(
          "'in <string>' requires string as left operand, not " + typeName(item));
    }
    if (container instanceof Map<?, ?> m) {
      return findKey(m, item) != NO_KEY;
    }
    if (container instanceof Undefined u) {
      return false;
    }
    for (Object o : iterate(container)) {
      if (eq(o, item)) {
        return true;
      }
    }
    return false;
  }

  // ------------------------------------------------------------------ attribute and item

  /** Jinja's sandboxed {@code getattr}: a Python attribute first, then an item. */
  static Object getattr(Object obj, String name) {
    if (obj instanceof Undefined u) {
      throw u.fail();
    }
    if (name.startsWith("_")) {
      return unsafe(obj, name);
    }
    if (obj instanceof Namespace ns) {
      Object v = ns.attrs.get(name);
      return v != null || ns.attrs.containsKey(name) ? v : Undefined.of(obj, name);
    }
    if (obj instanceof Attrs a) {
      return a.attr(name);
    }
    if (obj instanceof Tuple t && t.fields() != null && t.fields().contains(name)) {
      return t.items().get(t.fields().indexOf(name));
    }
    if (obj instanceof Markup m) {
      obj = m.text();
    }
    if (Methods.has(obj, name)) {
      return Methods.isUnsafe(obj, name) ? unsafe(obj, name) : new Methods.Bound(obj, name);
    }
    if (obj instanceof Map<?, ?> m) {
      Object key = findKey(m, name);
      if (key != NO_KEY) {
        return m.get(key);
      }
    }
    return Undefined.of(obj, name);
  }

  /** Jinja's sandboxed {@code getitem}: an item first, then (for a string key) an attribute. */
  static Object getitem(Object obj, Object key) {
    obj = unwrap(obj);
    if (obj instanceof Undefined u) {
      throw u.fail();
    }
    if (key instanceof Undefined u && !(obj instanceof Map)) {
      throw u.fail();
    }
    if (obj instanceof Map<?, ?> m) {
      Object k = findKey(m, key);
      if (k != NO_KEY) {
        return m.get(k);
      }
    } else if (obj instanceof List<?>
        || obj instanceof Tuple
        || obj instanceof String
        || obj instanceof Range) {
      if (isInt(key)) {
        List<?> seq = asList(obj);
        long i = toLong(key);
        if (i < 0) {
          i += seq.size();
        }
        if (i >= 0 && i < seq.size()) {
          return seq.get((int) i);
        }
        return Undefined.of(obj, key);
      }
    } else if (obj instanceof Namespace || obj instanceof Renderer.Loop) {
      // Not subscriptable: fall through to the attribute.
    }
    if (key instanceof String s) {
      Object v = getattr(obj, s);
      if (!(v instanceof Undefined)) {
        return v;
      }
    }
    return Undefined.of(obj, key);
  }

  /** Elements of a sequence as a list (strings by code point). */
  static List<?> asList(Object seq) {
    if (seq instanceof List<?> l) {
      return l;
    }
    if (seq instanceof Tuple t) {
      return t.items();
    }
    if (seq instanceof String s) {
      return PyString.chars(s);
    }
    if (seq instanceof Range r) {
      return toList(r);
    }
    throw TemplateException.runtime("'" + typeName(seq) + "' object is not subscriptable");
  }

  /** {@code obj[start:stop:step]} with Python's clamping; null bounds are open. */
  static Object slice(Object obj, Object start, Object stop, Object step) {
    obj = unwrap(obj);
    if (obj instanceof Undefined u) {
      throw u.fail();
    }
    List<?> seq = asList(obj);
    int n = seq.size();
    long st = step == null ? 1 : toLong(step);
    if (st == 0) {
      throw TemplateException.runtime("slice step cannot be zero");
    }
    long lo;
    long hi;
    if (st > 0) {
      lo = start == null ? 0 : clamp(toLong(start), n, 0, n);
      hi = stop == null ? n : clamp(toLong(stop), n, 0, n);
    } else {
      lo = start == null ? n - 1 : clamp(toLong(start), n, -1, n - 1);
      hi = stop == null ? -1 : clamp(toLong(stop), n, -1, n - 1);
    }
    List<Object> out = new ArrayList<>();
    if (st > 0) {
      for (long i = lo; i < hi; i += st) {
        out.add(seq.get((int) i));
      }
    } else {
      for (long i = lo; i > hi; i += st) {
        out.add(seq.get((int) i));
      }
    }
    if (obj instanceof String) {
      StringBuilder sb = new StringBuilder();
      for (Object o : out) {
        sb.append((String) o);
      }
      return sb.toString();
    }
    if (obj instanceof Tuple) {
      return new Tuple(out);
    }
    return out;
  }

  private static long clamp(long i, int n, long min, long max) {
    if (i < 0) {
      i += n;
    }
    return Math.max(min, Math.min(max, i));
  }

  private static Undefined unsafe(Object obj, String name) {
    return new Undefined(
        obj,
        name,
        "access to attribute " + repr(name) + " of " + repr(typeName(obj)) + " object is unsafe.",
        Kind.SECURITY);
  }

  /** A real Python attribute only (no item fallback): Jinja's {@code attr} filter. */
  static Object attribute(Object obj, String name) {
    if (obj instanceof Undefined u) {
      throw u.fail();
    }
    if (name.startsWith("_")) {
      return unsafe(obj, name);
    }
    if (obj instanceof Namespace
        || obj instanceof Attrs
        || (obj instanceof Tuple t && t.fields() != null)) {
      return getattr(obj, name);
    }
    if (Methods.has(unwrap(obj), name)) {
      return getattr(obj, name);
    }
    return Undefined.of(obj, name);
  }

  /** Calls a value with arguments, Python style. */
  static Object call(Object callee, List<Object> args, Map<String, Object> kwargs) {
    if (callee instanceof Undefined u) {
      throw u.fail();
    }
    if (callee instanceof Callable c) {
      return c.call(args, kwargs);
    }
    throw TemplateException.runtime("'" + typeName(callee) + "' object is not callable");
  }
}
