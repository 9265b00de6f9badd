package io.infera.jinja;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Python number formatting: {@code repr(float)}, {@code %}-formatting and {@code str.format}. */
final class PyFormat {

  private PyFormat() {}

  // ------------------------------------------------------------------ repr(float)

  /** Python's {@code repr(float)}: shortest round-trip digits, Python's layout. */
  static String floatRepr(double d) {
    if (Double.isNaN(d)) {
      return "nan";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? "inf" : "-inf";
    }
    if (d == 0) {
      return (1 / d < 0) ? "-0.0" : "0.0";
    }
    BigDecimal exact = new BigDecimal(d);
    BigDecimal shortest = null;
    for (int p = 1; p <= 17; p++) {
      BigDecimal r = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
      if (Double.parseDouble(r.toString()) == d) {
        shortest = r;
        break;
      }
    }
    if (shortest == null) {
      shortest = exact.round(new MathContext(17, RoundingMode.HALF_EVEN));
    }
    BigDecimal abs = shortest.abs().stripTrailingZeros();
    String digits = abs.unscaledValue().toString();
    // value = 0.digits × 10^decpt
    int decpt = digits.length() - abs.scale();
    String sign = d < 0 ? "-" : "";
    if (decpt > -4 && decpt <= 16) {
      StringBuilder sb = new StringBuilder(sign);
      if (decpt <= 0) {
        sb.append("0.").append("0".repeat(-decpt)).append(digits);
      } else if (decpt >= digits.length()) {
        sb.append(digits).append("0".repeat(decpt - digits.length())).append(".0");
      } else {
        sb.append(digits, 0, decpt).append('.').append(digits.substring(decpt));
      }
      return sb.toString();
    }
    int exp = decpt - 1;
    StringBuilder sb = new StringBuilder(sign).append(digits.charAt(0));
    if (digits.length() > 1) {
      sb.append('.').append(digits.substring(1));
    }
    sb.append('e').append(exp < 0 ? '-' : '+');
    String e = Integer.toString(Math.abs(exp));
    if (e.length() < 2) {
      sb.append('0');
    }
    return sb.append(e).toString();
  }

  // ------------------------------------------------------------------ fixed / exponent / general

  /** {@code format(x, '.{prec}f')}: exact binary value rounded half-even, like Python. */
  static String fixed(double x, int prec) {
    checkPrecision(prec);
    if (Double.isNaN(x) || Double.isInfinite(x)) {
      return floatRepr(x);
    }
    String s = new BigDecimal(x).setScale(prec, RoundingMode.HALF_EVEN).toPlainString();
    if (x < 0 || (x == 0 && 1 / x < 0)) {
      if (!s.startsWith("-")) {
        s = "-" + s;
      }
    }
    return s;
  }

  /** {@code format(x, '.{prec}e')}. */
  static String exponent(double x, int prec, boolean upper) {
    checkPrecision(prec);
    if (Double.isNaN(x) || Double.isInfinite(x)) {
      String r = floatRepr(x);
      return upper ? r.toUpperCase(Locale.ROOT) : r;
    }
    String sign = x < 0 || (x == 0 && 1 / x < 0) ? "-" : "";
    BigDecimal abs = new BigDecimal(x).abs();
    String digits;
    int exp;
    if (abs.signum() == 0) {
      digits = PyString.repeat("0", prec + 1L);
      exp = 0;
    } else {
      BigDecimal r = abs.round(new MathContext(prec + 1, RoundingMode.HALF_EVEN));
      String unscaled = r.unscaledValue().toString();
      exp = unscaled.length() - 1 - r.scale();
      digits = (unscaled + PyString.repeat("0", prec + 1L)).substring(0, prec + 1);
    }
    StringBuilder sb = new StringBuilder(sign).append(digits.charAt(0));
    if (prec > 0) {
      sb.append('.').append(digits, 1, prec + 1);
    }
    sb.append(upper ? 'E' : 'e').append(exp < 0 ? '-' : '+');
    String e = Integer.toString(Math.abs(exp));
    return sb.append(e.length() < 2 ? "0" + e : e).toString();
  }

  /** {@code format(x, '.{prec}g')}. */
  static String general(double x, int prec, boolean upper, boolean alternate) {
    checkPrecision(prec);
    if (Double.isNaN(x) || Double.isInfinite(x)) {
      String r = floatRepr(x);
      return upper ? r.toUpperCase(Locale.ROOT) : r;
    }
    int p = prec == 0 ? 1 : prec;
    String e = exponent(x, p - 1, upper);
    int exp = Integer.parseInt(e.substring(e.indexOf(upper ? 'E' : 'e') + 1));
    String out;
    if (exp >= -4 && exp < p) {
      out = fixed(x, p - 1 - exp);
    } else {
      out = e;
    }
    if (!alternate) {
      int ei = out.indexOf(upper ? 'E' : 'e');
      String mant = ei < 0 ? out : out.substring(0, ei);
      String rest = ei < 0 ? "" : out.substring(ei);
      if (mant.contains(".")) {
        mant = mant.replaceAll("0+$", "");
        if (mant.endsWith(".")) {
          mant = mant.substring(0, mant.length() - 1);
        }
      }
      out = mant + rest;
    }
    return out;
  }

  private static void checkPrecision(int prec) {
    if (prec > 10_000) {
      throw TemplateException.runtime("precision too large");
    }
  }

  // ------------------------------------------------------------------ printf-style %

  /** {@code fmt % args}: a tuple supplies several values, a dict named ones. */
  static String percent(String fmt, Object args) {
    try {
      return percentUnchecked(fmt, args);
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      throw TemplateException.runtime("invalid % format string " + PyText.repr(fmt));
    }
  }

  private static String percentUnchecked(String fmt, Object args) {
    List<Object> values;
    Map<?, ?> mapping = null;
    if (args instanceof Py.Tuple t) {
      values = t.items();
    } else {
      values = List.of(args == null ? NONE : args);
      if (args instanceof Map<?, ?> m) {
        mapping = m;
      }
    }
    StringBuilder sb = new StringBuilder();
    int argi = 0;
    boolean usedMapping = false;
    int i = 0;
    int n = fmt.length();
    while (i < n) {
      char c = fmt.charAt(i);
      if (c != '%') {
        sb.append(c);
        i++;
        continue;
      }
      i++;
      if (i >= n) {
        throw TemplateException.runtime("incomplete format");
      }
      Object value = null;
      boolean haveValue = false;
      if (fmt.charAt(i) == '(') {
        int close = fmt.indexOf(')', i);
        if (close < 0 || mapping == null) {
          throw TemplateException.runtime(
              mapping == null ? "format requires a mapping" : "incomplete format key");
        }
        String key = fmt.substring(i + 1, close);
        Object k = PyOps.findKey(mapping, key);
        if (k == PyOps.NO_KEY) {
          throw TemplateException.runtime("KeyError: " + PyText.repr(key));
        }
        value = mapping.get(k);
        haveValue = true;
        usedMapping = true;
        i = close + 1;
      }
      StringBuilder flags = new StringBuilder();
      while (i < n && "-+ #0".indexOf(fmt.charAt(i)) >= 0) {
        flags.append(fmt.charAt(i++));
      }
      int width = -1;
      if (i < n && fmt.charAt(i) == '*') {
        width = (int) PyOps.toLong(values.get(argi++));
        i++;
      } else {
        int ws = i;
        while (i < n && Character.isDigit(fmt.charAt(i))) {
          i++;
        }
        if (i > ws) {
          width = Integer.parseInt(fmt.substring(ws, i));
        }
      }
      int prec = -1;
      if (i < n && fmt.charAt(i) == '.') {
        i++;
        if (i < n && fmt.charAt(i) == '*') {
          prec = (int) PyOps.toLong(values.get(argi++));
          i++;
        } else {
          int ps = i;
          while (i < n && Character.isDigit(fmt.charAt(i))) {
            i++;
          }
          prec = i > ps ? Integer.parseInt(fmt.substring(ps, i)) : 0;
        }
      }
      while (i < n && "hlL".indexOf(fmt.charAt(i)) >= 0) {
        i++;
      }
      if (i >= n) {
        throw TemplateException.runtime("incomplete format");
      }
      char conv = fmt.charAt(i++);
      if (conv == '%') {
        sb.append('%');
        continue;
      }
      if (!haveValue) {
        if (mapping != null && !(args instanceof Py.Tuple)) {
          value = args;
          usedMapping = true;
        } else {
          if (argi >= values.size()) {
            throw TemplateException.runtime("not enough arguments for format string");
          }
          value = values.get(argi++);
        }
        if (value == NONE) {
          value = null;
        }
      }
      String piece = spec(conv, value, flags.toString(), width, prec);
      // '%s%s%s' % (s, s, s) repeats its argument: the buffer is checked before each piece.
      Meter.current().grow(sb.length(), piece.length());
      sb.append(piece);
    }
    if (mapping == null && argi < values.size()) {
      throw TemplateException.runtime("not all arguments converted during string formatting");
    }
    if (mapping != null && !usedMapping && argi == 0 && !(args instanceof Py.Tuple)) {
      // '%s' % {} style with no conversions consumed: Python allows a mapping.
    }
    return sb.toString();
  }

  private static final Object NONE = new Object();

  private static String spec(char conv, Object v, String flags, int width, int prec) {
    if (v instanceof Py.Undefined u && conv != 's') {
      throw u.fail();
    }
    boolean left = flags.indexOf('-') >= 0;
    boolean zero = flags.indexOf('0') >= 0 && !left;
    boolean plus = flags.indexOf('+') >= 0;
    boolean space = flags.indexOf(' ') >= 0;
    boolean alt = flags.indexOf('#') >= 0;
    String body;
    boolean numeric = false;
    switch (conv) {
      case 's' -> body = PyText.str(v);
      case 'r', 'a' -> body = PyText.repr(v);
      case 'c' ->
          body =
              v instanceof String s
                  ? s
                  : codePoint(v instanceof BigInteger b ? b : BigInteger.valueOf(PyOps.toLong(v)));
      case 'd', 'i', 'u' -> {
        numeric = true;
        body = intDigits(toIntegral(v, conv), 10, false, false);
      }
      case 'x', 'X', 'o' -> {
        numeric = true;
        body = intDigits(toIntegral(v, conv), conv == 'o' ? 8 : 16, conv == 'X', alt);
      }
      case 'f', 'F', 'e', 'E', 'g', 'G' -> {
        numeric = true;
        double x = toFloat(v, conv);
        int p = prec < 0 ? 6 : prec;
        body =
            switch (conv) {
              case 'f', 'F' -> fixed(x, p);
              case 'e', 'E' -> exponent(x, p, conv == 'E');
              default -> general(x, p, conv == 'G', alt);
            };
      }
      default ->
          throw TemplateException.runtime(
              "unsupported format character '" + conv + "' (0x" + Integer.toHexString(conv) + ")");
    }
    if (!numeric && prec >= 0 && conv != 'c') {
      List<Object> cps = PyString.chars(body);
      if (prec < cps.size()) {
        body = String.join("", cps.subList(0, prec).stream().map(o -> (String) o).toList());
      }
    }
    if (numeric && !body.startsWith("-")) {
      if (plus) {
        body = "+" + body;
      } else if (space) {
        body = " " + body;
      }
    }
    int len = Py.len(body);
    if (width > len) {
      if (left) {
        body = body + PyString.repeat(" ", width - len);
      } else if (zero && numeric) {
        int signLen = body.startsWith("-") || body.startsWith("+") || body.startsWith(" ") ? 1 : 0;
        if (body.startsWith("0x", signLen)
            || body.startsWith("0X", signLen)
            || body.startsWith("0o", signLen)) {
          signLen += 2;
        }
        body =
            body.substring(0, signLen)
                + PyString.repeat("0", width - len)
                + body.substring(signLen);
      } else {
        body = PyString.repeat(" ", width - len) + body;
      }
    }
    return body;
  }

  private static BigInteger toIntegral(Object v, char conv) {
    if (Py.isInt(v)) {
      return PyOps.toBig(v);
    }
    if (v instanceof Double d) {
      if (conv == 'x' || conv == 'X' || conv == 'o') {
        throw TemplateException.runtime("%" + conv + " format: an integer is required, not float");
      }
      return new BigDecimal(d).toBigInteger();
    }
    throw TemplateException.runtime(
        "%" + conv + " format: a real number is required, not " + PyText.typeName(v));
  }

  private static double toFloat(Object v, char conv) {
    if (Py.isNumber(v)) {
      return PyOps.toDouble(v);
    }
    throw TemplateException.runtime("must be real number, not " + PyText.typeName(v));
  }

  private static String intDigits(BigInteger v, int radix, boolean upper, boolean alt) {
    String s = v.abs().toString(radix);
    if (upper) {
      s = s.toUpperCase(Locale.ROOT);
    }
    if (alt) {
      s = (radix == 16 ? (upper ? "0X" : "0x") : "0o") + s;
    }
    return v.signum() < 0 ? "-" + s : s;
  }

  // ------------------------------------------------------------------ str.format

  /** Python's {@code str.format(*args, **kwargs)}. */
  static String format(String fmt, List<Object> args, Map<String, Object> kwargs) {
    try {
      return formatUnchecked(fmt, args, kwargs);
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      throw TemplateException.runtime("invalid format string " + PyText.repr(fmt));
    }
  }

  private static String formatUnchecked(String fmt, List<Object> args, Map<String, Object> kwargs) {
    StringBuilder sb = new StringBuilder();
    int auto = 0;
    boolean manual = false;
    boolean automatic = false;
    int i = 0;
    int n = fmt.length();
    while (i < n) {
      char c = fmt.charAt(i);
      if (c == '{') {
        if (i + 1 < n && fmt.charAt(i + 1) == '{') {
          sb.append('{');
          i += 2;
          continue;
        }
        int close = matchingBrace(fmt, i);
        String field = fmt.substring(i + 1, close);
        i = close + 1;
        String spec = "";
        char conversion = 0;
        int colon = field.indexOf(':');
        if (colon >= 0) {
          spec = field.substring(colon + 1);
          field = field.substring(0, colon);
        }
        int bang = field.indexOf('!');
        if (bang >= 0) {
          if (bang + 1 >= field.length()) {
            throw TemplateException.runtime("end of string while looking for conversion specifier");
          }
          conversion = field.charAt(bang + 1);
          field = field.substring(0, bang);
        }
        // field name: first part, then .attr / [key] chains
        int end = 0;
        while (end < field.length() && field.charAt(end) != '.' && field.charAt(end) != '[') {
          end++;
        }
        String first = field.substring(0, end);
        Object value;
        if (first.isEmpty()) {
          if (manual) {
            throw TemplateException.runtime(
                "cannot switch from manual field specification to automatic field numbering");
          }
          automatic = true;
          if (auto >= args.size()) {
            throw TemplateException.runtime(
                "Replacement index " + auto + " out of range for positional args tuple");
          }
          value = args.get(auto++);
        } else if (first.chars().allMatch(Character::isDigit)) {
          if (automatic) {
            throw TemplateException.runtime(
                "cannot switch from automatic field numbering to manual field specification");
          }
          manual = true;
          int idx = Integer.parseInt(first);
          if (idx >= args.size()) {
            throw TemplateException.runtime(
                "Replacement index " + idx + " out of range for positional args tuple");
          }
          value = args.get(idx);
        } else {
          if (!kwargs.containsKey(first)) {
            throw TemplateException.runtime("KeyError: " + PyText.repr(first));
          }
          value = kwargs.get(first);
        }
        String rest = field.substring(end);
        while (!rest.isEmpty()) {
          if (rest.charAt(0) == '.') {
            int e = 1;
            while (e < rest.length() && rest.charAt(e) != '.' && rest.charAt(e) != '[') {
              e++;
            }
            value = PyAccess.getattr(value, rest.substring(1, e));
            rest = rest.substring(e);
          } else {
            int e = rest.indexOf(']');
            if (e < 0) {
              throw TemplateException.runtime("Missing ']' in format string");
            }
            String key = rest.substring(1, e);
            Object k =
                key.chars().allMatch(Character::isDigit) && !key.isEmpty()
                    ? (Object) Long.parseLong(key)
                    : key;
            value = PyAccess.getitem(value, k);
            rest = rest.substring(e + 1);
          }
        }
        if (conversion == 'r' || conversion == 'a') {
          value = PyText.repr(value);
        } else if (conversion == 's') {
          value = PyText.str(value);
        }
        if (spec.contains("{")) {
          spec = formatUnchecked(spec, args, kwargs);
        }
        String piece = formatValue(value, spec);
        Meter.current().grow(sb.length(), piece.length());
        sb.append(piece);
      } else if (c == '}') {
        if (i + 1 < n && fmt.charAt(i + 1) == '}') {
          sb.append('}');
          i += 2;
          continue;
        }
        throw TemplateException.runtime("Single '}' encountered in format string");
      } else {
        sb.append(c);
        i++;
      }
    }
    return sb.toString();
  }

  private static int matchingBrace(String fmt, int open) {
    int depth = 0;
    for (int i = open; i < fmt.length(); i++) {
      char c = fmt.charAt(i);
      if (c == '{') {
        depth++;
      } else if (c == '}') {
        depth--;
        if (depth == 0) {
          return i;
        }
      }
    }
    throw TemplateException.runtime("expected '}' before end of string");
  }

  /** Python's {@code format(value, spec)} with the format-spec mini-language. */
  static String formatValue(Object value, String spec) {
    if (spec.isEmpty()) {
      return PyText.str(value);
    }
    int i = 0;
    String fill = " ";
    char align = 0;
    if (spec.length() >= 2 && "<>=^".indexOf(spec.charAt(1)) >= 0) {
      fill = spec.substring(0, 1);
      align = spec.charAt(1);
      i = 2;
    } else if ("<>=^".indexOf(spec.charAt(0)) >= 0) {
      align = spec.charAt(0);
      i = 1;
    }
    char sign = 0;
    if (i < spec.length() && "+- ".indexOf(spec.charAt(i)) >= 0) {
      sign = spec.charAt(i++);
    }
    boolean alt = false;
    if (i < spec.length() && spec.charAt(i) == '#') {
      alt = true;
      i++;
    }
    if (i < spec.length() && spec.charAt(i) == '0') {
      if (align == 0) {
        fill = "0";
        align = '=';
      }
      i++;
    }
    int ws = i;
    while (i < spec.length() && Character.isDigit(spec.charAt(i))) {
      i++;
    }
    int width = i > ws ? Integer.parseInt(spec.substring(ws, i)) : -1;
    char grouping = 0;
    if (i < spec.length() && (spec.charAt(i) == ',' || spec.charAt(i) == '_')) {
      grouping = spec.charAt(i++);
    }
    int prec = -1;
    if (i < spec.length() && spec.charAt(i) == '.') {
      i++;
      int ps = i;
      while (i < spec.length() && Character.isDigit(spec.charAt(i))) {
        i++;
      }
      prec = Integer.parseInt(spec.substring(ps, i));
    }
    char type = i < spec.length() ? spec.charAt(i++) : 0;
    if (i != spec.length()) {
      throw TemplateException.runtime("Invalid format specifier");
    }
    String body;
    boolean numeric = Py.isNumber(value) && !(value instanceof Boolean && type == 0);
    if (value instanceof String s) {
      if (type != 0 && type != 's') {
        throw TemplateException.runtime(
            "Unknown format code '" + type + "' for object of type 'str'");
      }
      body = prec >= 0 && prec < Py.len(s) ? (String) PyAccess.slice(s, 0L, (long) prec, null) : s;
      if (align == 0) {
        align = '<';
      }
    } else if (numeric) {
      boolean isFloat = value instanceof Double || "eEfFgG%".indexOf(type) >= 0;
      if (isFloat) {
        double x = PyOps.toDouble(value);
        body =
            switch (type) {
              case 'f', 'F' -> fixed(x, prec < 0 ? 6 : prec);
              case 'e', 'E' -> exponent(x, prec < 0 ? 6 : prec, type == 'E');
              case 'g', 'G' -> general(x, prec < 0 ? 6 : prec, type == 'G', alt);
              case '%' -> fixed(x * 100, prec < 0 ? 6 : prec) + "%";
              default -> prec < 0 ? floatRepr(x) : general(x, prec, false, alt);
            };
      } else {
        BigInteger v = PyOps.toBig(value);
        body =
            switch (type) {
              case 'x' -> intDigits(v, 16, false, alt);
              case 'X' -> intDigits(v, 16, true, alt);
              case 'o' -> intDigits(v, 8, false, alt);
              case 'b' -> (v.signum() < 0 ? "-" : "") + (alt ? "0b" : "") + v.abs().toString(2);
              case 'c' -> codePoint(v);
              default -> v.toString();
            };
      }
      if (grouping != 0) {
        body = group(body, grouping);
      }
      if (!body.startsWith("-")) {
        if (sign == '+') {
          body = "+" + body;
        } else if (sign == ' ') {
          body = " " + body;
        }
      }
      if (align == 0) {
        align = '>';
      }
    } else {
      body = PyText.str(value);
      if (align == 0) {
        align = '<';
      }
    }
    int len = Py.len(body);
    if (width > len) {
      if (align == '=') {
        int signLen = !body.isEmpty() && "+- ".indexOf(body.charAt(0)) >= 0 ? 1 : 0;
        body =
            body.substring(0, signLen)
                + PyString.repeat(fill, width - len)
                + body.substring(signLen);
      } else {
        body = PyString.pad(body, width, align, fill);
      }
    }
    return body;
  }

  private static String group(String digits, char sep) {
    int start = digits.startsWith("-") ? 1 : 0;
    int dot = digits.indexOf('.');
    int end = dot < 0 ? digits.length() : dot;
    StringBuilder sb = new StringBuilder(digits.substring(0, start));
    String intPart = digits.substring(start, end);
    for (int k = 0; k < intPart.length(); k++) {
      if (k > 0 && (intPart.length() - k) % 3 == 0) {
        sb.append(sep);
      }
      sb.append(intPart.charAt(k));
    }
    return sb.append(digits.substring(end)).toString();
  }

  /** Python's {@code %c} and {@code {:c}} of an int: an {@code OverflowError} outside the range. */
  private static String codePoint(BigInteger v) {
    if (v.signum() < 0 || v.compareTo(MAX_CODE_POINT) > 0) {
      throw TemplateException.runtime("%c arg not in range(0x110000)");
    }
    return new String(Character.toChars(v.intValue()));
  }

  private static final BigInteger MAX_CODE_POINT = BigInteger.valueOf(Character.MAX_CODE_POINT);
}
