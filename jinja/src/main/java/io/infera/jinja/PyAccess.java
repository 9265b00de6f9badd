package io.infera.jinja;

import io.infera.jinja.TemplateException.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Jinja's sandboxed attribute and item access, slicing and calls, over the engine's values. */
final class PyAccess {

  private PyAccess() {}

  // ------------------------------------------------------------------ attribute and item

  /** Jinja's sandboxed {@code getattr}: a Python attribute first, then an item. */
  static Object getattr(Object obj, String name) {
    if (obj instanceof Py.Undefined u) {
      throw u.fail();
    }
    if (name.startsWith("_")) {
      return unsafe(obj, name);
    }
    if (obj instanceof Py.Namespace ns) {
      Object v = ns.attrs.get(name);
      return v != null || ns.attrs.containsKey(name) ? v : Py.Undefined.of(obj, name);
    }
    if (obj instanceof Py.Attrs a) {
      return a.attr(name);
    }
    if (obj instanceof Py.Tuple t && t.fields() != null && t.fields().contains(name)) {
      return t.items().get(t.fields().indexOf(name));
    }
    if (obj instanceof Py.Markup m) {
      obj = m.text();
    }
    if (Methods.has(obj, name)) {
      return Methods.isUnsafe(obj, name) ? unsafe(obj, name) : new Methods.Bound(obj, name);
    }
    if (obj instanceof Map<?, ?> m) {
      Object key = PyOps.findKey(m, name);
      if (key != PyOps.NO_KEY) {
        return m.get(key);
      }
    }
    return Py.Undefined.of(obj, name);
  }

  /** Jinja's sandboxed {@code getitem}: an item first, then (for a string key) an attribute. */
  static Object getitem(Object obj, Object key) {
    obj = Py.unwrap(obj);
    if (obj instanceof Py.Undefined u) {
      throw u.fail();
    }
    if (key instanceof Py.Undefined u && !(obj instanceof Map)) {
      throw u.fail();
    }
    if (obj instanceof Map<?, ?> m) {
      Object k = PyOps.findKey(m, key);
      if (k != PyOps.NO_KEY) {
        return m.get(k);
      }
    } else if (obj instanceof List<?>
        || obj instanceof Py.Tuple
        || obj instanceof String
        || obj instanceof Py.Range) {
      if (Py.isInt(key)) {
        List<?> seq = asList(obj);
        long i = PyOps.toClippedLong(key);
        if (i < 0) {
          i += seq.size();
        }
        if (i >= 0 && i < seq.size()) {
          return seq.get((int) i);
        }
        return Py.Undefined.of(obj, key);
      }
    } else if (obj instanceof Py.Namespace || obj instanceof Renderer.Loop) {
      // Not subscriptable: fall through to the attribute.
    }
    if (key instanceof String s) {
      Object v = getattr(obj, s);
      if (!(v instanceof Py.Undefined)) {
        return v;
      }
    }
    return Py.Undefined.of(obj, key);
  }

  /** Elements of a sequence as a list (strings by code point). */
  static List<?> asList(Object seq) {
    if (seq instanceof List<?> l) {
      return l;
    }
    if (seq instanceof Py.Tuple t) {
      return t.items();
    }
    if (seq instanceof String s) {
      return PyString.chars(s);
    }
    if (seq instanceof Py.Range r) {
      return Py.toList(r);
    }
    throw TemplateException.runtime("'" + PyText.typeName(seq) + "' object is not subscriptable");
  }

  /** {@code obj[start:stop:step]} with Python's clamping; null bounds are open. */
  static Object slice(Object obj, Object start, Object stop, Object step) {
    obj = Py.unwrap(obj);
    if (obj instanceof Py.Undefined u) {
      throw u.fail();
    }
    List<?> seq = asList(obj);
    int n = seq.size();
    long st = step == null ? 1 : PyOps.toClippedLong(step);
    if (st == 0) {
      throw TemplateException.runtime("slice step cannot be zero");
    }
    long lo;
    long hi;
    if (st > 0) {
      lo = start == null ? 0 : clamp(PyOps.toClippedLong(start), n, 0, n);
      hi = stop == null ? n : clamp(PyOps.toClippedLong(stop), n, 0, n);
    } else {
      lo = start == null ? n - 1 : clamp(PyOps.toClippedLong(start), n, -1, n - 1);
      hi = stop == null ? -1 : clamp(PyOps.toClippedLong(stop), n, -1, n - 1);
    }
    Meter.current().items(Math.max(0, st > 0 ? (hi - lo) / st + 1 : (lo - hi) / -st + 1));
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
    if (obj instanceof Py.Tuple) {
      return new Py.Tuple(out);
    }
    return out;
  }

  private static long clamp(long i, int n, long min, long max) {
    if (i < 0) {
      i += n;
    }
    return Math.max(min, Math.min(max, i));
  }

  private static Py.Undefined unsafe(Object obj, String name) {
    return new Py.Undefined(
        obj,
        name,
        "access to attribute "
            + PyText.repr(name)
            + " of "
            + PyText.repr(PyText.typeName(obj))
            + " object is unsafe.",
        Kind.SECURITY);
  }

  /** A real Python attribute only (no item fallback): Jinja's {@code attr} filter. */
  static Object attribute(Object obj, String name) {
    if (obj instanceof Py.Undefined u) {
      throw u.fail();
    }
    if (name.startsWith("_")) {
      return unsafe(obj, name);
    }
    if (obj instanceof Py.Namespace
        || obj instanceof Py.Attrs
        || (obj instanceof Py.Tuple t && t.fields() != null)) {
      return getattr(obj, name);
    }
    if (Methods.has(Py.unwrap(obj), name)) {
      return getattr(obj, name);
    }
    return Py.Undefined.of(obj, name);
  }

  /** Calls a value with arguments, Python style. */
  static Object call(Object callee, List<Object> args, Map<String, Object> kwargs) {
    if (callee instanceof Py.Undefined u) {
      throw u.fail();
    }
    if (callee instanceof Py.Callable c) {
      return c.call(args, kwargs);
    }
    throw TemplateException.runtime("'" + PyText.typeName(callee) + "' object is not callable");
  }
}
