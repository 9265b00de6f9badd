package io.infera.jinja;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/**
 * Python's {@code str} and {@code repr} of the engine's values, and the type names its errors use.
 */
final class PyText {

  private PyText() {}

  // ------------------------------------------------------------------ str / repr

  /** Python's {@code str(v)}; Py.Undefined is ''. */
  static String str(Object v) {
    if (v instanceof String s) {
      return s;
    }
    if (v instanceof Py.Markup m) {
      return m.text();
    }
    if (v instanceof Py.Undefined) {
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
    // Checked per element: [l, l] nested 40 deep shares its lists and would print 2^40 of them.
    Meter meter = Meter.current();
    meter.step();
    meter.grow(sb.length(), v instanceof String s ? s.length() + 2L : 8);
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
    } else if (v instanceof Py.Markup m) {
      sb.append("Py.Markup(");
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
    } else if (v instanceof Py.Tuple t && t.fields() != null) {
      sb.append(t.typeName()).append('(');
      for (int i = 0; i < t.items().size(); i++) {
        if (i > 0) {
          sb.append(", ");
        }
        sb.append(t.fields().get(i)).append('=');
        repr(t.items().get(i), sb);
      }
      sb.append(')');
    } else if (v instanceof Py.Tuple t) {
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
    } else if (v instanceof Py.Range r) {
      sb.append("range(").append(r.start()).append(", ").append(r.stop());
      if (r.step() != 1) {
        sb.append(", ").append(r.step());
      }
      sb.append(')');
    } else if (v instanceof Py.Undefined) {
      sb.append("Py.Undefined");
    } else if (v instanceof Py.Namespace ns) {
      sb.append("<Py.Namespace ");
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
    if (v instanceof Py.Tuple) {
      return "tuple";
    }
    if (v instanceof Map) {
      return "dict";
    }
    if (v instanceof Py.Range) {
      return "range";
    }
    if (v instanceof Py.Markup) {
      return "Py.Markup";
    }
    if (v instanceof Py.Undefined) {
      return "Py.Undefined";
    }
    if (v instanceof Py.Namespace) {
      return "Py.Namespace";
    }
    if (v instanceof Renderer.Loop) {
      return "LoopContext";
    }
    if (v instanceof Py.Callable) {
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
      case "Py.Namespace" -> "jinja2.utils.Namespace object";
      case "LoopContext" -> "jinja2.runtime.LoopContext object";
      default -> typeName(v) + " object";
    };
  }
}
