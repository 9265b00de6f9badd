package io.infera.jinja;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Python's equality, ordering and arithmetic over the engine's values ({@code int} stays exact, as
 * Python's).
 */
final class PyOps {

  private PyOps() {}

  // ------------------------------------------------------------------ equality and order

  static boolean eq(Object a, Object b) {
    a = Py.unwrap(a);
    b = Py.unwrap(b);
    if (a == b) {
      return true;
    }
    if (a == null || b == null) {
      return false;
    }
    if (a instanceof Py.Undefined || b instanceof Py.Undefined) {
      return a instanceof Py.Undefined && b instanceof Py.Undefined;
    }
    if (Py.isNumber(a) && Py.isNumber(b)) {
      return compareNumbers(a, b) == 0;
    }
    if (a instanceof String s) {
      return s.equals(b);
    }
    if (a instanceof List<?> la && b instanceof List<?> lb) {
      return seqEq(la, lb);
    }
    if (a instanceof Py.Tuple ta && b instanceof Py.Tuple tb) {
      return seqEq(ta.items(), tb.items());
    }
    if (a instanceof Map<?, ?> ma && b instanceof Map<?, ?> mb) {
      if (ma.size() != mb.size()) {
        return false;
      }
      Meter.current().steps(ma.size() + 1L);
      for (Map.Entry<?, ?> e : ma.entrySet()) {
        Object key = findKey(mb, e.getKey());
        if (key == NO_KEY || !eq(e.getValue(), mb.get(key))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof Py.Range ra && b instanceof Py.Range rb) {
      return ra.equals(rb);
    }
    return a.equals(b);
  }

  private static boolean seqEq(List<?> a, List<?> b) {
    if (a.size() != b.size()) {
      return false;
    }
    // Shared sublists make a nested comparison exponential: every level costs steps.
    Meter.current().steps(a.size() + 1L);
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
    if (Py.isNumber(key)) {
      for (Object k : m.keySet()) {
        if (Py.isNumber(k) && eq(k, key)) {
          return k;
        }
      }
    }
    return NO_KEY;
  }

  /** Python ordering ({@code <}); a TypeError for unorderable pairs. */
  static int compare(Object a, Object b, String op) {
    a = Py.unwrap(a);
    b = Py.unwrap(b);
    if (Py.isNumber(a) && Py.isNumber(b)) {
      return compareNumbers(a, b);
    }
    if (a instanceof String sa && b instanceof String sb) {
      return PyString.compare(sa, sb);
    }
    if (a instanceof List<?> la && b instanceof List<?> lb) {
      return compareSeq(la, lb, op);
    }
    if (a instanceof Py.Tuple ta && b instanceof Py.Tuple tb) {
      return compareSeq(ta.items(), tb.items(), op);
    }
    if (a instanceof Py.Undefined u) {
      throw u.fail();
    }
    if (b instanceof Py.Undefined u) {
      throw u.fail();
    }
    throw TemplateException.runtime(
        "'"
            + op
            + "' not supported between instances of '"
            + PyText.typeName(a)
            + "' and '"
            + PyText.typeName(b)
            + "'");
  }

  private static int compareSeq(List<?> a, List<?> b, String op) {
    int n = Math.min(a.size(), b.size());
    Meter.current().steps(n + 1L);
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
      if (b.bitLength() >= Long.SIZE) {
        throw TemplateException.runtime("cannot fit 'int' into an index-sized integer");
      }
      return b.longValue();
    }
    throw TemplateException.runtime(
        "'" + PyText.typeName(v) + "' object cannot be interpreted as an integer");
  }

  /**
   * An integer argument that Python clips to the index range instead of refusing (slice bounds,
   * {@code round}'s precision).
   */
  static long toClippedLong(Object v) {
    if (v instanceof BigInteger b && b.bitLength() >= Long.SIZE) {
      return b.signum() > 0 ? Long.MAX_VALUE : -Long.MAX_VALUE;
    }
    return toLong(v);
  }

  static Object arith(String op, Object a, Object b) {
    if (op.equals("+")
        && a instanceof Py.Markup m
        && (b instanceof String || b instanceof Py.Markup)) {
      String right = b instanceof Py.Markup mb ? mb.text() : Filters.escape((String) b);
      Meter.current().value((long) m.text().length() + right.length());
      return new Py.Markup(m.text() + right);
    }
    a = Py.unwrap(a);
    b = Py.unwrap(b);
    if (a instanceof Py.Undefined u) {
      throw u.fail();
    }
    if (b instanceof Py.Undefined u) {
      throw u.fail();
    }
    if (Py.isNumber(a) && Py.isNumber(b)) {
      return numeric(op, a, b);
    }
    switch (op) {
      case "+" -> {
        if (a instanceof String x && b instanceof String y) {
          Meter.current().value((long) x.length() + y.length());
          return x + y;
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
          Meter.current().items((long) x.size() + y.size());
          List<Object> out = new ArrayList<>(x);
          out.addAll(y);
          return out;
        }
        if (a instanceof Py.Tuple x && b instanceof Py.Tuple y) {
          Meter.current().items((long) x.items().size() + y.items().size());
          List<Object> out = new ArrayList<>(x.items());
          out.addAll(y.items());
          return new Py.Tuple(out);
        }
      }
      case "*" -> {
        if (Py.isInt(a) && !Py.isNumber(b)) {
          return arith("*", b, a);
        }
        if (Py.isInt(b)) {
          long n = Math.max(0, toLong(b));
          long size =
              a instanceof String s0
                  ? s0.length()
                  : a instanceof List<?> l0
                      ? l0.size()
                      : a instanceof Py.Tuple t0 ? t0.items().size() : 0;
          if (a instanceof String s) {
            return PyString.repeat(s, n);
          }
          if (size > 0) {
            Meter.current().items(Meter.times(size, n));
          }
          if (a instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            for (long i = 0; i < n; i++) {
              out.addAll(l);
            }
            return out;
          }
          if (a instanceof Py.Tuple t) {
            List<Object> out = new ArrayList<>();
            for (long i = 0; i < n; i++) {
              out.addAll(t.items());
            }
            return new Py.Tuple(out);
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
            + PyText.typeName(a)
            + "' and '"
            + PyText.typeName(b)
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
      case "*" -> {
        // Squaring in a loop doubles the bits each time: refuse before the multiplication.
        Meter.integerBits((long) x.bitLength() + y.bitLength());
        yield norm(x.multiply(y));
      }
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
        // About log2|x| × y bits: refuse before the power is computed.
        Meter.integerBits(Meter.times(Math.max(0, x.bitLength() - 1L), y.longValue()));
        yield norm(x.pow(y.intValue()));
      }
      default -> throw new IllegalArgumentException(op);
    };
  }

  static Object negate(Object v) {
    if (v instanceof Py.Undefined u) {
      throw u.fail();
    }
    if (v instanceof Double d) {
      return -d;
    }
    if (Py.isInt(v)) {
      return norm(toBig(v).negate());
    }
    throw TemplateException.runtime("bad operand type for unary -: '" + PyText.typeName(v) + "'");
  }

  static Object plus(Object v) {
    if (v instanceof Py.Undefined u) {
      throw u.fail();
    }
    if (v instanceof Boolean b) {
      return b ? 1L : 0L;
    }
    if (Py.isNumber(v)) {
      return v;
    }
    throw TemplateException.runtime("bad operand type for unary +: '" + PyText.typeName(v) + "'");
  }
}
