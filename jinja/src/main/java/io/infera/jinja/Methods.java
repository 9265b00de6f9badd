package io.infera.jinja;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Python methods of str, dict, list and tuple that templates call, with sandbox rules. */
final class Methods {

  private Methods() {}

  private static final Set<String> STR =
      Set.of(
          "capitalize",
          "casefold",
          "center",
          "count",
          "endswith",
          "find",
          "format",
          "index",
          "isalnum",
          "isalpha",
          "isascii",
          "isdecimal",
          "isdigit",
          "islower",
          "isnumeric",
          "isspace",
          "istitle",
          "isupper",
          "join",
          "ljust",
          "lower",
          "lstrip",
          "partition",
          "removeprefix",
          "removesuffix",
          "replace",
          "rfind",
          "rindex",
          "rjust",
          "rpartition",
          "rsplit",
          "rstrip",
          "split",
          "splitlines",
          "startswith",
          "strip",
          "swapcase",
          "title",
          "upper",
          "zfill",
          "encode",
          "expandtabs",
          "format_map",
          "isidentifier",
          "isprintable",
          "maketrans",
          "translate");
  private static final Set<String> DICT =
      Set.of(
          "clear",
          "copy",
          "fromkeys",
          "get",
          "items",
          "keys",
          "pop",
          "popitem",
          "setdefault",
          "update",
          "values");
  private static final Set<String> LIST =
      Set.of(
          "append", "clear", "copy", "count", "extend", "index", "insert", "pop", "remove",
          "reverse", "sort");
  private static final Set<String> TUPLE = Set.of("count", "index");

  // ImmutableSandboxedEnvironment: methods that modify a known mutable type are unsafe. Jinja 3.1.5
  // added clear and pop to the MutableSequence list (3.1.2 still allowed list.pop()).
  private static final Set<String> DICT_UNSAFE =
      Set.of("clear", "pop", "popitem", "setdefault", "update");
  private static final Set<String> LIST_UNSAFE =
      Set.of("append", "clear", "pop", "reverse", "insert", "sort", "extend", "remove");

  static boolean has(Object obj, String name) {
    if (obj instanceof String) {
      return STR.contains(name);
    }
    if (obj instanceof Map) {
      return DICT.contains(name);
    }
    if (obj instanceof List) {
      return LIST.contains(name);
    }
    if (obj instanceof Py.Tuple) {
      return TUPLE.contains(name);
    }
    return false;
  }

  static boolean isUnsafe(Object obj, String name) {
    return (obj instanceof Map && DICT_UNSAFE.contains(name))
        || (obj instanceof List && LIST_UNSAFE.contains(name));
  }

  /** A method bound to its receiver. */
  record Bound(Object self, String name) implements Py.Callable {
    @Override
    public Object call(List<Object> args, Map<String, Object> kwargs) {
      if (self instanceof String s) {
        return str(s, name, new Args(name, args, kwargs));
      }
      if (self instanceof Map<?, ?> m) {
        return dict(m, name, new Args(name, args, kwargs));
      }
      if (self instanceof List<?> l) {
        return list(l, name, new Args(name, args, kwargs));
      }
      if (self instanceof Py.Tuple t) {
        return list(t.items(), name, new Args(name, args, kwargs));
      }
      throw TemplateException.runtime("no method " + name);
    }
  }

  /** Positional and keyword arguments of one call, with Python-style errors. */
  static final class Args {
    final String fn;
    final List<Object> pos;
    final Map<String, Object> kw;

    Args(String fn, List<Object> pos, Map<String, Object> kw) {
      this.fn = fn;
      this.pos = pos;
      this.kw = kw;
    }

    Object get(int i, String name, Object dflt) {
      if (i < pos.size()) {
        return pos.get(i);
      }
      if (name != null && kw.containsKey(name)) {
        return kw.get(name);
      }
      return dflt;
    }

    Object required(int i, String name) {
      Object v = get(i, name, MISSING);
      if (v == MISSING) {
        throw TemplateException.runtime(
            fn + "() missing required argument '" + name + "' (pos " + (i + 1) + ")");
      }
      return v;
    }

    String string(int i, String name) {
      Object v = required(i, name);
      if (v instanceof String s) {
        return s;
      }
      if (v instanceof Py.Undefined u) {
        throw u.fail();
      }
      throw TemplateException.runtime(fn + "() argument must be str, not " + PyText.typeName(v));
    }

    String optString(int i, String name) {
      Object v = get(i, name, null);
      if (v == null) {
        return null;
      }
      if (v instanceof String s) {
        return s;
      }
      if (v instanceof Py.Undefined u) {
        throw u.fail();
      }
      throw TemplateException.runtime(
          fn + "() argument must be str or None, not " + PyText.typeName(v));
    }

    long integer(int i, String name, long dflt) {
      Object v = get(i, name, dflt);
      return v == null ? dflt : PyOps.toLong(v);
    }

    void atMost(int n) {
      if (pos.size() > n) {
        throw TemplateException.runtime(
            fn + "() takes at most " + n + " arguments (" + pos.size() + " given)");
      }
    }
  }

  static final Object MISSING = new Object();

  /** Methods whose result is a fresh string about the size of the receiver. */
  private static final Set<String> STRING_RESULT =
      Set.of(
          "upper",
          "lower",
          "casefold",
          "title",
          "capitalize",
          "swapcase",
          "strip",
          "lstrip",
          "rstrip",
          "removeprefix",
          "removesuffix",
          "partition",
          "rpartition");

  private static Object str(String s, String name, Args a) {
    // Every str method scans its receiver: work; most build a copy: allocation, checked first.
    Meter meter = Meter.current();
    meter.steps(s.length() / 16);
    if (STRING_RESULT.contains(name)) {
      meter.value(s.length());
    }
    switch (name) {
      case "upper":
        return PyString.upper(s);
      case "lower":
      case "casefold":
        return PyString.lower(s);
      case "title":
        return PyString.title(s);
      case "capitalize":
        return PyString.capitalize(s);
      case "swapcase":
        return PyString.swapcase(s);
      case "strip":
        return PyString.strip(s, a.optString(0, "chars"), true, true);
      case "lstrip":
        return PyString.strip(s, a.optString(0, "chars"), true, false);
      case "rstrip":
        return PyString.strip(s, a.optString(0, "chars"), false, true);
      case "split":
        return PyString.split(s, a.optString(0, "sep"), a.integer(1, "maxsplit", -1));
      case "rsplit":
        return PyString.rsplit(s, a.optString(0, "sep"), a.integer(1, "maxsplit", -1));
      case "splitlines":
        return PyString.splitlines(s, Py.truthy(a.get(0, "keepends", false)));
      case "replace":
        return PyString.replace(
            s, a.string(0, "old"), a.string(1, "new"), a.integer(2, "count", -1));
      case "startswith":
      case "endswith":
        {
          Object prefix = a.required(0, "prefix");
          String sub = s;
          Object start = a.get(1, null, null);
          Object end = a.get(2, null, null);
          if (start != null || end != null) {
            sub = (String) PyAccess.slice(s, start, end, null);
          }
          List<Object> options = prefix instanceof Py.Tuple t ? t.items() : List.of(prefix);
          for (Object o : options) {
            if (!(o instanceof String p)) {
              throw TemplateException.runtime(
                  name + " first arg must be str or a tuple of str, not " + PyText.typeName(o));
            }
            if (name.equals("startswith") ? sub.startsWith(p) : sub.endsWith(p)) {
              return true;
            }
          }
          return false;
        }
      case "find":
        return PyString.find(s, a.string(0, "sub"), false);
      case "rfind":
        return PyString.find(s, a.string(0, "sub"), true);
      case "index":
      case "rindex":
        {
          long i = PyString.find(s, a.string(0, "sub"), name.equals("rindex"));
          if (i < 0) {
            throw TemplateException.runtime("substring not found");
          }
          return i;
        }
      case "count":
        return PyString.count(s, a.string(0, "sub"));
      case "join":
        {
          List<Object> items = Py.toList(a.required(0, "iterable"));
          long size = Meter.times(s.length(), Math.max(0, items.size() - 1L));
          for (Object o : items) {
            if (!(o instanceof String item)) {
              throw TemplateException.runtime(
                  "sequence item: expected str instance, " + PyText.typeName(o) + " found");
            }
            size = size < 0 ? size : size + item.length();
          }
          meter.value(size);
          StringBuilder sb = new StringBuilder((int) size);
          boolean first = true;
          for (Object o : items) {
            if (!first) {
              sb.append(s);
            }
            first = false;
            sb.append((String) o);
          }
          return sb.toString();
        }
      case "format":
        return PyFormat.format(s, a.pos, a.kw);
      case "format_map":
        {
          Map<String, Object> kw = new LinkedHashMap<>();
          ((Map<?, ?>) a.required(0, "mapping")).forEach((k, v) -> kw.put(PyText.str(k), v));
          return PyFormat.format(s, List.of(), kw);
        }
      case "center":
        return PyString.pad(s, a.integer(0, "width", 0), '^', fillchar(a));
      case "ljust":
        return PyString.pad(s, a.integer(0, "width", 0), '<', fillchar(a));
      case "rjust":
        return PyString.pad(s, a.integer(0, "width", 0), '>', fillchar(a));
      case "zfill":
        return PyString.zfill(s, a.integer(0, "width", 0));
      case "removeprefix":
        {
          String p = a.string(0, "prefix");
          return s.startsWith(p) ? s.substring(p.length()) : s;
        }
      case "removesuffix":
        {
          String p = a.string(0, "suffix");
          return !p.isEmpty() && s.endsWith(p) ? s.substring(0, s.length() - p.length()) : s;
        }
      case "partition":
      case "rpartition":
        {
          String sep = a.string(0, "sep");
          int i = name.equals("partition") ? s.indexOf(sep) : s.lastIndexOf(sep);
          if (i < 0) {
            return name.equals("partition") ? Py.Tuple.of(s, "", "") : Py.Tuple.of("", "", s);
          }
          return Py.Tuple.of(s.substring(0, i), sep, s.substring(i + sep.length()));
        }
      case "isdigit":
      case "isdecimal":
      case "isnumeric":
        return PyString.allMatch(s, Character::isDigit);
      case "isalpha":
        return PyString.allMatch(s, Character::isLetter);
      case "isalnum":
        return PyString.allMatch(s, Character::isLetterOrDigit);
      case "isspace":
        return PyString.allMatch(s, Py::isSpace);
      case "isascii":
        return s.chars().allMatch(c -> c < 128);
      case "islower":
        return PyString.isLower(s);
      case "isupper":
        return PyString.isUpper(s);
      case "istitle":
        return !s.isEmpty()
            && s.equals(PyString.title(s))
            && s.codePoints().anyMatch(PyString::isCased);
      case "isprintable":
        return s.codePoints().allMatch(PyString::isPrintable);
      case "isidentifier":
        return !s.isEmpty()
            && (Character.isUnicodeIdentifierStart(s.codePointAt(0)) || s.charAt(0) == '_')
            && s.codePoints().allMatch(c -> Character.isUnicodeIdentifierPart(c) || c == '_');
      case "expandtabs":
        {
          long tab = a.integer(0, "tabsize", 8);
          long tabs = s.chars().filter(c -> c == '\t').count();
          meter.value(s.length() + Meter.times(tabs, Math.max(0, tab)));
          StringBuilder sb = new StringBuilder();
          int col = 0;
          for (Object o : PyString.chars(s)) {
            String ch = (String) o;
            if (ch.equals("\t")) {
              int spaces = tab > 0 ? (int) (tab - col % tab) : 0;
              sb.append(PyString.repeat(" ", spaces));
              col += spaces;
            } else {
              sb.append(ch);
              col = ch.equals("\n") || ch.equals("\r") ? 0 : col + 1;
            }
          }
          return sb.toString();
        }
      default:
        throw TemplateException.runtime("str." + name + "() is not supported in templates");
    }
  }

  private static String fillchar(Args a) {
    Object f = a.get(1, "fillchar", " ");
    if (!(f instanceof String s) || Py.len(s) != 1) {
      throw TemplateException.runtime("The fill character must be exactly one character long");
    }
    return s;
  }

  private static Object dict(Map<?, ?> m, String name, Args a) {
    switch (name) {
      case "get":
        {
          a.atMost(2);
          Object k = PyOps.findKey(m, a.required(0, "key"));
          return k == PyOps.NO_KEY ? a.get(1, null, null) : m.get(k);
        }
      case "items":
        {
          Meter.current().items(m.size() * 2L);
          List<Object> out = new ArrayList<>(m.size());
          m.forEach((k, v) -> out.add(Py.Tuple.of(k, v)));
          return out;
        }
      case "keys":
        Meter.current().items(m.size());
        return new ArrayList<Object>(m.keySet());
      case "values":
        Meter.current().items(m.size());
        return new ArrayList<Object>(m.values());
      case "copy":
        Meter.current().items(m.size() * 2L);
        return new LinkedHashMap<Object, Object>(m);
      case "fromkeys":
        {
          Object keys = a.required(0, "iterable");
          Meter.current().items(Py.size(keys) * 2L);
          Map<Object, Object> out = new LinkedHashMap<>();
          for (Object k : Py.iterate(keys)) {
            out.put(k, a.get(1, null, null));
          }
          return out;
        }
      default:
        throw TemplateException.security(
            "access to attribute '" + name + "' of 'dict' object is unsafe.");
    }
  }

  private static Object list(List<?> l, String name, Args a) {
    Meter.current().steps(l.size());
    switch (name) {
      case "count":
        {
          Object x = a.required(0, "value");
          long n = 0;
          for (Object o : l) {
            if (PyOps.eq(o, x)) {
              n++;
            }
          }
          return n;
        }
      case "index":
        {
          Object x = a.required(0, "value");
          for (int i = 0; i < l.size(); i++) {
            if (PyOps.eq(l.get(i), x)) {
              return (long) i;
            }
          }
          throw TemplateException.runtime(PyText.repr(x) + " is not in list");
        }
      case "copy":
        Meter.current().items(l.size());
        return new ArrayList<Object>(l);
      default:
        throw TemplateException.security(
            "access to attribute '" + name + "' of 'list' object is unsafe.");
    }
  }
}
