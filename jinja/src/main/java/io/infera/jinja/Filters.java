package io.infera.jinja;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Jinja2's built-in filters, plus transformers' {@code tojson}. */
final class Filters {
  /** Python's {@code NDIGITS_MAX} / {@code NDIGITS_MIN} for {@code float.__round__}. */
  private static final int FLOAT_ROUND_DIGITS_MAX = 323;

  private static final int FLOAT_ROUND_DIGITS_MIN = -308;

  private Filters() {}

  static final Set<String> NAMES =
      Set.of(
          "abs",
          "attr",
          "batch",
          "capitalize",
          "center",
          "count",
          "d",
          "default",
          "dictsort",
          "e",
          "escape",
          "first",
          "float",
          "forceescape",
          "format",
          "groupby",
          "indent",
          "int",
          "items",
          "join",
          "last",
          "length",
          "list",
          "lower",
          "map",
          "max",
          "min",
          "pprint",
          "reject",
          "rejectattr",
          "replace",
          "reverse",
          "round",
          "safe",
          "select",
          "selectattr",
          "slice",
          "sort",
          "string",
          "sum",
          "title",
          "tojson",
          "trim",
          "truncate",
          "unique",
          "upper",
          "wordcount",
          "filesizeformat",
          "wordwrap",
          "striptags");

  private static final Pattern WORD = Pattern.compile("\\w+", Pattern.UNICODE_CHARACTER_CLASS);
  private static final Pattern WORD_BEGINNING =
      Pattern.compile("([-\\s({\\[<]+)", Pattern.UNICODE_CHARACTER_CLASS);

  /** Filters whose result is a list about the size of their input (items checked first). */
  private static final Set<String> LIST_RESULT =
      Set.of(
          "list",
          "reverse",
          "items",
          "dictsort",
          "sort",
          "unique",
          "map",
          "select",
          "reject",
          "selectattr",
          "rejectattr",
          "batch",
          "slice",
          "groupby");

  /** Other filters that walk their whole input (length, first, default, … do not). */
  private static final Set<String> WALKS =
      Set.of("min", "max", "sum", "join", "wordcount", "indent", "center", "replace", "last");

  /** Filters whose result is a fresh string about the size of their input. */
  private static final Set<String> STRING_RESULT =
      Set.of(
          "string",
          "lower",
          "upper",
          "capitalize",
          "title",
          "trim",
          "truncate",
          "e",
          "escape",
          "forceescape",
          "striptags",
          "wordwrap",
          "pprint");

  static Object apply(
      String name, Object v, List<Object> args, Map<String, Object> kw, Renderer r) {
    Methods.Args a = new Methods.Args(name, args, kw);
    // Every filter walks its input once (work); sizes are checked before results are built.
    Meter meter = Meter.current();
    long size = Py.size(v);
    if (LIST_RESULT.contains(name) || STRING_RESULT.contains(name) || WALKS.contains(name)) {
      meter.steps(v instanceof String || v instanceof Py.Markup ? size / 16 : size);
    }
    if (LIST_RESULT.contains(name)) {
      meter.items(name.equals("items") || name.equals("dictsort") ? size * 2 : size);
    } else if (STRING_RESULT.contains(name)) {
      meter.value(size);
    }
    switch (name) {
      case "default":
      case "d":
        {
          Object dflt = a.get(0, "default_value", "");
          boolean bool = Py.truthy(a.get(1, "boolean", false));
          if (v instanceof Py.Undefined || (bool && !Py.truthy(v))) {
            return dflt;
          }
          return v;
        }
      case "length":
      case "count":
        return (long) Py.len(v);
      case "string":
        return PyText.str(v);
      case "lower":
        return PyString.lower(PyText.str(v));
      case "upper":
        return PyString.upper(PyText.str(v));
      case "capitalize":
        return PyString.capitalize(PyText.str(v));
      case "title":
        return jinjaTitle(PyText.str(v));
      case "trim":
        return PyString.strip(PyText.str(v), a.optString(0, "chars"), true, true);
      case "center":
        return PyString.pad(PyText.str(v), a.integer(0, "width", 80), '^', " ");
      case "replace":
        {
          Object count = a.get(2, "count", null);
          return PyString.replace(
              PyText.str(v),
              PyText.str(a.required(0, "old")),
              PyText.str(a.required(1, "new")),
              count == null ? -1 : PyOps.toLong(count));
        }
      case "format":
        {
          if (!args.isEmpty() && !kw.isEmpty()) {
            throw TemplateException.runtime(
                "can't handle positional and keyword arguments at the same time");
          }
          Object fmtArgs =
              kw.isEmpty() ? new Py.Tuple(args) : new LinkedHashMap<Object, Object>(kw);
          return PyFormat.percent(PyText.str(v), fmtArgs);
        }
      case "tojson":
        {
          Object seps = a.get(2, "separators", null);
          List<String> separators = null;
          if (seps != null) {
            List<Object> s = Py.toList(seps);
            if (s.size() != 2) {
              // Python: "item_separator, key_separator = separators" fails the same way.
              throw TemplateException.runtime(
                  "tojson separators must be a pair (item, key), got " + s.size() + " values");
            }
            separators = List.of(PyText.str(s.get(0)), PyText.str(s.get(1)));
          }
          return PyJson.dumps(
              v,
              Py.truthy(a.get(0, "ensure_ascii", false)),
              a.get(1, "indent", null),
              separators,
              Py.truthy(a.get(3, "sort_keys", false)));
        }
      case "join":
        {
          Object attribute = a.get(1, "attribute", null);
          String sep = PyText.str(a.get(0, "d", ""));
          // Every piece first (each within the value limit), then the total, then one buffer.
          List<Object> items = Py.toList(v);
          String[] pieces = new String[items.size()];
          long total = Meter.times(sep.length(), Math.max(0, pieces.length - 1L));
          for (int i = 0; i < pieces.length; i++) {
            Object o = items.get(i);
            if (attribute != null) {
              o = attrGet(o, attribute, null);
            }
            pieces[i] = PyText.str(o);
            total = total < 0 ? total : total + pieces[i].length();
          }
          meter.value(total);
          StringBuilder sb = new StringBuilder((int) total);
          for (int i = 0; i < pieces.length; i++) {
            if (i > 0) {
              sb.append(sep);
            }
            sb.append(pieces[i]);
          }
          return sb.toString();
        }
      case "list":
        return Py.toList(v);
      case "first":
        {
          for (Object o : Py.iterate(v)) {
            return o;
          }
          return Py.Undefined.hint("No first item, sequence was empty.");
        }
      case "last":
        {
          List<Object> l = v instanceof Map<?, ?> ? Py.toList(v) : listOf(v);
          return l.isEmpty()
              ? Py.Undefined.hint("No last item, sequence was empty.")
              : l.get(l.size() - 1);
        }
      case "reverse":
        {
          if (v instanceof String s) {
            return PyAccess.slice(s, null, null, -1L);
          }
          List<Object> l = new ArrayList<>(Py.toList(v));
          java.util.Collections.reverse(l);
          return l;
        }
      case "items":
        {
          if (v instanceof Py.Undefined) {
            return new ArrayList<>();
          }
          if (!(v instanceof Map<?, ?> m)) {
            throw TemplateException.runtime("Can only get item pairs from a mapping.");
          }
          List<Object> out = new ArrayList<>();
          m.forEach((k, x) -> out.add(Py.Tuple.of(k, x)));
          return out;
        }
      case "dictsort":
        {
          if (!(v instanceof Map<?, ?> m)) {
            throw TemplateException.runtime("dictsort expects a mapping");
          }
          boolean cs = Py.truthy(a.get(0, "case_sensitive", false));
          String by = PyText.str(a.get(1, "by", "key"));
          boolean reverse = Py.truthy(a.get(2, "reverse", false));
          int pos = by.equals("key") ? 0 : by.equals("value") ? 1 : -1;
          if (pos < 0) {
            throw TemplateException.runtime("You can only sort by either \"key\" or \"value\"");
          }
          List<Object> items = new ArrayList<>();
          m.forEach((k, x) -> items.add(Py.Tuple.of(k, x)));
          Comparator<Object> cmp =
              Comparator.comparing(
                  o -> sortKey(((Py.Tuple) o).items().get(pos), cs), Filters::pyCompare);
          return sorted(items, cmp, reverse);
        }
      case "sort":
        {
          boolean reverse = Py.truthy(a.get(0, "reverse", false));
          boolean cs = Py.truthy(a.get(1, "case_sensitive", false));
          Object attribute = a.get(2, "attribute", null);
          Comparator<Object> cmp =
              Comparator.comparing(o -> multiKey(o, attribute, cs), Filters::pyCompare);
          meter.steps(size * (64 - Long.numberOfLeadingZeros(size + 1)));
          return sorted(Py.toList(v), cmp, reverse);
        }
      case "unique":
        {
          boolean cs = Py.truthy(a.get(0, "case_sensitive", false));
          Object attribute = a.get(1, "attribute", null);
          List<Object> out = new ArrayList<>();
          List<Object> seen = new ArrayList<>();
          for (Object o : Py.iterate(v)) {
            Object key = sortKey(attribute == null ? o : attrGet(o, attribute, null), cs);
            meter.steps(seen.size());
            boolean dup = false;
            for (Object s : seen) {
              if (PyOps.eq(s, key)) {
                dup = true;
                break;
              }
            }
            if (!dup) {
              seen.add(key);
              out.add(o);
            }
          }
          return out;
        }
      case "min":
      case "max":
        {
          boolean cs = Py.truthy(a.get(0, "case_sensitive", false));
          Object attribute = a.get(1, "attribute", null);
          List<Object> l = Py.toList(v);
          if (l.isEmpty()) {
            return Py.Undefined.hint("No aggregated item, sequence was empty.");
          }
          Object best = l.get(0);
          Object bestKey = sortKey(attribute == null ? best : attrGet(best, attribute, null), cs);
          for (Object o : l.subList(1, l.size())) {
            Object key = sortKey(attribute == null ? o : attrGet(o, attribute, null), cs);
            int c = pyCompare(key, bestKey);
            if (name.equals("max") ? c > 0 : c < 0) {
              best = o;
              bestKey = key;
            }
          }
          return best;
        }
      case "sum":
        {
          Object attribute = a.get(0, "attribute", null);
          Object total = a.get(1, "start", 0L);
          for (Object o : Py.iterate(v)) {
            total = PyOps.arith("+", total, attribute == null ? o : attrGet(o, attribute, null));
          }
          return total;
        }
      case "map":
        {
          List<Object> out = new ArrayList<>();
          if (args.isEmpty() && kw.containsKey("attribute")) {
            Object attribute = kw.get("attribute");
            Object dflt = kw.get("default");
            for (Object o : Py.iterate(v)) {
              out.add(attrGet(o, attribute, dflt));
            }
            return out;
          }
          if (args.isEmpty()) {
            throw TemplateException.runtime("map requires a filter argument");
          }
          String filter = PyText.str(args.get(0));
          checkFilter(filter);
          List<Object> rest = args.subList(1, args.size());
          for (Object o : Py.iterate(v)) {
            out.add(r.callFilter(filter, o, rest, kw));
          }
          return out;
        }
      case "select":
      case "reject":
      case "selectattr":
      case "rejectattr":
        {
          boolean attr = name.endsWith("attr");
          boolean want = name.startsWith("select");
          Object attribute = attr ? a.required(0, "attribute") : null;
          int t = attr ? 1 : 0;
          String test = args.size() > t ? PyText.str(args.get(t)) : null;
          List<Object> testArgs =
              args.size() > t + 1 ? args.subList(t + 1, args.size()) : List.of();
          if (test != null && !Tests.NAMES.contains(test)) {
            throw TemplateException.runtime("No test named '" + test + "'.");
          }
          List<Object> out = new ArrayList<>();
          for (Object o : Py.iterate(v)) {
            Object x = attr ? attrGet(o, attribute, null) : o;
            boolean ok = test == null ? Py.truthy(x) : Tests.test(test, x, testArgs, Map.of(), r);
            if (ok == want) {
              out.add(o);
            }
          }
          return out;
        }
      case "attr":
        return PyAccess.attribute(v, PyText.str(a.required(0, "name")));
      case "int":
        return toInt(v, a.get(0, "default", 0L), a.integer(1, "base", 10));
      case "float":
        return toFloat(v, a.get(0, "default", 0.0));
      case "abs":
        {
          if (v instanceof Double d) {
            return Math.abs(d);
          }
          if (Py.isInt(v)) {
            return PyOps.norm(PyOps.toBig(v).abs());
          }
          if (v instanceof Py.Undefined u) {
            throw u.fail();
          }
          throw TemplateException.runtime(
              "bad operand type for abs(): '" + PyText.typeName(v) + "'");
        }
      case "round":
        {
          Object p = a.get(0, "precision", 0L);
          long precision = p == null ? 0 : PyOps.toClippedLong(p);
          String method = PyText.str(a.get(1, "method", "common"));
          if (v instanceof Py.Undefined u) {
            throw u.fail();
          }
          if (!Py.isNumber(v)) {
            throw TemplateException.runtime(
                "type " + PyText.typeName(v) + " doesn't define __round__");
          }
          RoundingMode mode =
              switch (method) {
                case "common" -> RoundingMode.HALF_EVEN;
                case "ceil" -> RoundingMode.CEILING;
                case "floor" -> RoundingMode.FLOOR;
                default -> throw TemplateException.runtime("method must be common, ceil or floor");
              };
          return method.equals("common") ? roundCommon(v, precision) : roundTo(v, precision, mode);
        }
      case "indent":
        {
          Object width = a.get(0, "width", 4L);
          String ind = width instanceof String s ? s : PyString.repeat(" ", PyOps.toLong(width));
          boolean first = Py.truthy(a.get(1, "first", false));
          boolean blank = Py.truthy(a.get(2, "blank", false));
          String s = PyText.str(v) + "\n";
          List<Object> lines = PyString.splitlines(s, false);
          meter.value(s.length() + Meter.times(lines.size() + 1L, ind.length()));
          StringBuilder sb = new StringBuilder();
          if (blank) {
            for (int i = 0; i < lines.size(); i++) {
              if (i > 0) {
                sb.append('\n').append(ind);
              }
              sb.append((String) lines.get(i));
            }
          } else {
            sb.append(lines.isEmpty() ? "" : (String) lines.get(0));
            for (int i = 1; i < lines.size(); i++) {
              String line = (String) lines.get(i);
              sb.append('\n').append(line.isEmpty() ? "" : ind + line);
            }
          }
          return first ? ind + sb : sb.toString();
        }
      case "truncate":
        {
          String s = PyText.str(v);
          long length = a.integer(0, "length", 255);
          boolean killwords = Py.truthy(a.get(1, "killwords", false));
          String end = PyText.str(a.get(2, "end", "..."));
          Object lw = a.get(3, "leeway", null);
          long leeway = lw == null ? 5 : PyOps.toLong(lw);
          if (Py.len(s) <= length + leeway) {
            return s;
          }
          String head = (String) PyAccess.slice(s, null, length - Py.len(end), null);
          if (killwords) {
            return head + end;
          }
          return PyString.rsplit(head, " ", 1).get(0) + end;
        }
      case "wordcount":
        {
          Matcher m = WORD.matcher(PyText.str(v));
          long n = 0;
          while (m.find()) {
            n++;
          }
          return n;
        }
      case "batch":
        {
          long linecount = a.integer(0, "linecount", 1);
          Object fill = a.get(1, "fill_with", null);
          boolean haveFill = args.size() > 1 || kw.containsKey("fill_with");
          if (haveFill && fill != null) {
            meter.items(linecount);
          }
          List<Object> out = new ArrayList<>();
          List<Object> tmp = new ArrayList<>();
          for (Object o : Py.iterate(v)) {
            if (tmp.size() == linecount) {
              out.add(tmp);
              tmp = new ArrayList<>();
            }
            tmp.add(o);
          }
          if (!tmp.isEmpty()) {
            if (haveFill && fill != null) {
              while (tmp.size() < linecount) {
                tmp.add(fill);
              }
            }
            out.add(tmp);
          }
          return out;
        }
      case "slice":
        {
          List<Object> seq = Py.toList(v);
          long slices = a.integer(0, "slices", 1);
          Object fill = a.get(1, "fill_with", null);
          int length = seq.size();
          int per = (int) (length / slices);
          int extra = (int) (length % slices);
          int offset = 0;
          List<Object> out = new ArrayList<>();
          for (int i = 0; i < slices; i++) {
            int start = offset + i * per;
            if (i < extra) {
              offset++;
            }
            int end = offset + (i + 1) * per;
            List<Object> tmp = new ArrayList<>(seq.subList(start, end));
            if (fill != null && i >= extra) {
              tmp.add(fill);
            }
            out.add(tmp);
          }
          return out;
        }
      case "groupby":
        {
          Object attribute = a.required(0, "attribute");
          Object dflt = a.get(1, "default", null);
          boolean cs = Py.truthy(a.get(2, "case_sensitive", false));
          List<Object> items = Py.toList(v);
          Comparator<Object> cmp =
              Comparator.comparing(
                  o -> sortKey(attrGet(o, attribute, dflt), cs), Filters::pyCompare);
          List<Object> sortedItems = sorted(items, cmp, false);
          List<Object> out = new ArrayList<>();
          Object curKey = Py.Undefined.hint("");
          List<Object> group = null;
          for (Object o : sortedItems) {
            Object key = sortKey(attrGet(o, attribute, dflt), cs);
            if (group == null || !PyOps.eq(key, curKey)) {
              group = new ArrayList<>();
              curKey = key;
              out.add(new Object[] {attrGet(o, attribute, dflt), group});
            }
            group.add(o);
          }
          List<Object> tuples = new ArrayList<>();
          for (Object o : out) {
            Object[] pair = (Object[]) o;
            tuples.add(
                new Py.Tuple(List.of(pair[0], pair[1]), List.of("grouper", "list"), "_GroupTuple"));
          }
          return tuples;
        }
      case "e":
      case "escape":
        return v instanceof Py.Markup ? v : new Py.Markup(escape(PyText.str(v)));
      case "forceescape":
        return new Py.Markup(escape(PyText.str(v)));
      case "safe":
        return v instanceof Py.Markup ? v : new Py.Markup(PyText.str(v));
      case "striptags":
        {
          String t = PyText.str(v).replaceAll("(?s)<!--.*?-->", "").replaceAll("(?s)<.*?>", "");
          String joined =
              String.join(" ", PyString.split(t, null, -1).stream().map(o -> (String) o).toList());
          return unescapeHtml(joined);
        }
      case "filesizeformat":
        return fileSize(v, Py.truthy(a.get(0, "binary", false)));
      case "wordwrap":
        return wordwrap(
            PyText.str(v),
            (int) a.integer(0, "width", 79),
            Py.truthy(a.get(1, "break_long_words", true)),
            a.get(2, "wrapstring", null) == null ? "\n" : PyText.str(a.get(2, "wrapstring", null)));
      case "pprint":
        return PyText.repr(v);
      default:
        throw TemplateException.runtime("No filter named '" + name + "'.");
    }
  }

  static void checkFilter(String name) {
    if (!NAMES.contains(name)) {
      throw TemplateException.runtime("No filter named '" + name + "'.");
    }
  }

  private static List<Object> listOf(Object v) {
    return new ArrayList<>(Py.toList(v));
  }

  private static List<Object> sorted(List<Object> items, Comparator<Object> cmp, boolean reverse) {
    List<Object> out = new ArrayList<>(items);
    out.sort(reverse ? cmp.reversed() : cmp);
    return out;
  }

  /** Jinja's {@code make_multi_attrgetter}: {@code "a,b"} sorts by a list of attributes. */
  private static Object multiKey(Object o, Object attribute, boolean cs) {
    if (attribute instanceof String s && s.contains(",")) {
      List<Object> key = new ArrayList<>();
      for (String part : s.split(",")) {
        key.add(sortKey(attrGet(o, part, null), cs));
      }
      return key;
    }
    return sortKey(attribute == null ? o : attrGet(o, attribute, null), cs);
  }

  private static String unescapeHtml(String s) {
    Matcher m = Pattern.compile("&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos|nbsp);").matcher(s);
    StringBuilder sb = new StringBuilder();
    while (m.find()) {
      String e = m.group(1);
      String rep =
          switch (e) {
            case "amp" -> "&";
            case "lt" -> "<";
            case "gt" -> ">";
            case "quot" -> "\"";
            case "apos" -> "'";
            case "nbsp" -> "\u00a0";
            default ->
                new String(
                    Character.toChars(
                        e.startsWith("#x")
                            ? Integer.parseInt(e.substring(2), 16)
                            : Integer.parseInt(e.substring(1))));
          };
      m.appendReplacement(sb, Matcher.quoteReplacement(rep));
    }
    m.appendTail(sb);
    return sb.toString();
  }

  private static String fileSize(Object v, boolean binary) {
    double bytes = PyOps.toDouble(toFloat(v, 0.0));
    int base = binary ? 1024 : 1000;
    String[] prefixes =
        binary
            ? new String[] {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"}
            : new String[] {"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
    if (bytes == 1) {
      return "1 Byte";
    }
    if (bytes < base) {
      return (long) bytes + " Bytes";
    }
    double unit = base;
    String prefix = prefixes[0];
    for (int i = 0; i < prefixes.length; i++) {
      unit = Math.pow(base, i + 2);
      prefix = prefixes[i];
      if (bytes < unit) {
        break;
      }
    }
    return PyFormat.fixed(base * bytes / unit, 1) + " " + prefix;
  }

  /** Jinja's {@code wordwrap}: textwrap.wrap per line (whitespace kept, long words broken). */
  private static String wordwrap(String s, int width, boolean breakLong, String wrapstring) {
    List<String> out = new ArrayList<>();
    for (Object lineObj : PyString.splitlines(s, false)) {
      String line = (String) lineObj;
      List<String> chunks = new ArrayList<>();
      Matcher m = Pattern.compile("\\s+|[^\\s]+").matcher(line);
      while (m.find()) {
        chunks.add(m.group());
      }
      List<String> lines = new ArrayList<>();
      StringBuilder cur = new StringBuilder();
      int i = 0;
      while (i < chunks.size()) {
        String c = chunks.get(i);
        if (cur.length() == 0 && c.isBlank() && !lines.isEmpty()) {
          i++;
          continue;
        }
        if (cur.length() + c.length() <= width) {
          cur.append(c);
          i++;
        } else if (c.length() > width && breakLong) {
          int room = Math.max(1, width - cur.length());
          cur.append(c, 0, room);
          chunks.set(i, c.substring(room));
          lines.add(cur.toString());
          cur.setLength(0);
        } else if (cur.length() == 0) {
          cur.append(c);
          i++;
        } else {
          lines.add(cur.toString().stripTrailing());
          cur.setLength(0);
        }
      }
      if (cur.length() > 0) {
        lines.add(cur.toString().stripTrailing());
      }
      out.add(String.join(wrapstring, lines));
    }
    return String.join(wrapstring, out);
  }

  private static Object sortKey(Object o, boolean caseSensitive) {
    return !caseSensitive && o instanceof String s ? PyString.lower(s) : o;
  }

  private static int pyCompare(Object a, Object b) {
    int c = PyOps.compare(a, b, "<");
    return Integer.signum(c);
  }

  /** Jinja's {@code make_attrgetter}: dotted paths, integer parts as indexes. */
  static Object attrGet(Object item, Object attribute, Object dflt) {
    List<Object> parts = new ArrayList<>();
    if (attribute instanceof String s) {
      for (String p : s.split("\\.", -1)) {
        parts.add(
            !p.isEmpty() && p.chars().allMatch(Character::isDigit)
                ? (Object) Long.parseLong(p)
                : p);
      }
    } else {
      parts.add(attribute);
    }
    Object v = item;
    for (Object p : parts) {
      v = PyAccess.getitem(v, p);
    }
    if (dflt != null && v instanceof Py.Undefined) {
      return dflt;
    }
    return v;
  }

  private static String jinjaTitle(String s) {
    StringBuilder sb = new StringBuilder();
    Matcher m = WORD_BEGINNING.matcher(s);
    int last = 0;
    List<String> items = new ArrayList<>();
    while (m.find()) {
      items.add(s.substring(last, m.start()));
      items.add(m.group());
      last = m.end();
    }
    items.add(s.substring(last));
    for (String item : items) {
      if (item.isEmpty()) {
        continue;
      }
      int cp = item.codePointAt(0);
      int n = Character.charCount(cp);
      sb.append(PyString.upper(item.substring(0, n))).append(PyString.lower(item.substring(n)));
    }
    return sb.toString();
  }

  /**
   * Python's {@code round(v, precision)}: an int is rounded half-even to a power of ten (exact); a
   * float beyond the digits a double can hold is returned as it is, or as a signed zero.
   */
  private static Object roundCommon(Object v, long precision) {
    if (Py.isInt(v)) {
      BigInteger big = PyOps.toBig(v);
      if (precision >= 0) {
        return PyOps.norm(big);
      }
      if (-precision > big.abs().toString().length()) {
        return 0L;
      }
      return PyOps.norm(
          new BigDecimal(big).setScale((int) precision, RoundingMode.HALF_EVEN).toBigInteger());
    }
    double d = PyOps.toDouble(v);
    if (Double.isNaN(d) || Double.isInfinite(d) || precision > FLOAT_ROUND_DIGITS_MAX) {
      return d;
    }
    if (precision < FLOAT_ROUND_DIGITS_MIN) {
      return 0.0 * d;
    }
    return new BigDecimal(d).setScale((int) precision, RoundingMode.HALF_EVEN).doubleValue();
  }

  /**
   * Jinja's {@code round(method='ceil'|'floor')}: {@code ceil(v * 10**p) / 10**p} in floats; a
   * scale a double cannot hold fails as Python's arithmetic does.
   */
  private static double roundTo(Object v, long precision, RoundingMode mode) {
    if (precision > 308) {
      throw TemplateException.runtime("int too large to convert to float");
    }
    if (precision < -323) {
      throw TemplateException.runtime("float division by zero");
    }
    double d = PyOps.toDouble(v);
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      return d;
    }
    double scale = Math.pow(10, precision);
    double x = d * scale;
    return (mode == RoundingMode.CEILING ? Math.ceil(x) : Math.floor(x)) / scale;
  }

  static String escape(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> sb.append("&amp;");
        case '<' -> sb.append("&lt;");
        case '>' -> sb.append("&gt;");
        case '"' -> sb.append("&#34;");
        case '\'' -> sb.append("&#39;");
        default -> sb.append(c);
      }
    }
    return sb.toString();
  }

  private static Object toInt(Object v, Object dflt, long base) {
    if (v instanceof Py.Undefined u) {
      throw u.fail();
    }
    try {
      if (v instanceof String s) {
        return parseInt(s, (int) base);
      }
      if (Py.isInt(v)) {
        return PyOps.norm(PyOps.toBig(v));
      }
      if (v instanceof Double d) {
        return truncate(d);
      }
      throw new NumberFormatException();
    } catch (NumberFormatException e) {
      Object f = toFloat(v, null);
      if (f instanceof Double d) {
        return truncate(d);
      }
      return dflt;
    }
  }

  private static Object truncate(double d) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      throw TemplateException.runtime(
          "cannot convert float " + PyFormat.floatRepr(d) + " to integer");
    }
    return PyOps.norm(new BigDecimal(d).toBigInteger());
  }

  private static Object parseInt(String s, int base) {
    String t = PyString.strip(s, null, true, true).replace("_", "");
    if (t.isEmpty() || s.contains("__")) {
      throw new NumberFormatException();
    }
    String sign = "";
    if (t.startsWith("+") || t.startsWith("-")) {
      sign = t.startsWith("-") ? "-" : "";
      t = t.substring(1);
    }
    String lower = t.toLowerCase(java.util.Locale.ROOT);
    int detected =
        lower.startsWith("0x") ? 16 : lower.startsWith("0o") ? 8 : lower.startsWith("0b") ? 2 : 0;
    if (detected != 0 && (base == 0 || base == detected)) {
      t = t.substring(2);
      base = detected;
    } else if (base == 0) {
      base = 10;
    }
    return PyOps.norm(new BigInteger(sign + t, base));
  }

  private static Object toFloat(Object v, Object dflt) {
    if (v instanceof Double) {
      return v;
    }
    if (Py.isNumber(v)) {
      return PyOps.toDouble(v);
    }
    if (v instanceof String s) {
      String t =
          PyString.strip(s, null, true, true).replace("_", "").toLowerCase(java.util.Locale.ROOT);
      switch (t) {
        case "nan", "+nan", "-nan" -> {
          return Double.NaN;
        }
        case "inf", "+inf", "infinity", "+infinity" -> {
          return Double.POSITIVE_INFINITY;
        }
        case "-inf", "-infinity" -> {
          return Double.NEGATIVE_INFINITY;
        }
        default -> {}
      }
      if (t.matches("[+-]?(\\d+\\.?\\d*|\\.\\d+)(e[+-]?\\d+)?")) {
        return Double.parseDouble(t);
      }
    }
    if (v instanceof Py.Undefined u) {
      throw u.fail();
    }
    return dflt;
  }
}
