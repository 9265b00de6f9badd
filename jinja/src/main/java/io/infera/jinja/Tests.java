package io.infera.jinja;

import java.util.List;
import java.util.Map;
import java.util.Set;

/** Jinja2's built-in tests ({@code x is defined}, {@code select('equalto', 1)}, …). */
final class Tests {

  private Tests() {}

  static final Set<String> NAMES =
      Set.of(
          "boolean",
          "callable",
          "defined",
          "divisibleby",
          "eq",
          "equalto",
          "==",
          "escaped",
          "even",
          "false",
          "filter",
          "float",
          "ge",
          ">=",
          "gt",
          "greaterthan",
          ">",
          "in",
          "integer",
          "iterable",
          "le",
          "<=",
          "lower",
          "lt",
          "lessthan",
          "<",
          "mapping",
          "ne",
          "!=",
          "none",
          "number",
          "odd",
          "sameas",
          "sequence",
          "string",
          "test",
          "true",
          "undefined",
          "upper");

  static boolean test(
      String name, Object v, List<Object> args, Map<String, Object> kw, Renderer r) {
    switch (name) {
      case "defined":
        return !(v instanceof Py.Undefined);
      case "undefined":
        return v instanceof Py.Undefined;
      case "none":
        return v == null;
      case "boolean":
        return v instanceof Boolean;
      case "true":
        return Boolean.TRUE.equals(v);
      case "false":
        return Boolean.FALSE.equals(v);
      case "integer":
        return v instanceof Long || v instanceof java.math.BigInteger;
      case "float":
        return v instanceof Double;
      case "number":
        return Py.isNumber(v);
      case "string":
        return v instanceof String || v instanceof Py.Markup;
      case "mapping":
        return v instanceof Map;
      case "iterable":
        return v instanceof String
            || v instanceof Py.Markup
            || v instanceof List
            || v instanceof Map
            || v instanceof Py.Tuple
            || v instanceof Py.Range
            || v instanceof Py.Undefined;
      case "sequence":
        return v instanceof String
            || v instanceof Py.Markup
            || v instanceof List
            || v instanceof Map
            || v instanceof Py.Tuple
            || v instanceof Py.Range
            || v instanceof Py.Undefined;
      case "callable":
        return v instanceof Py.Callable;
      case "escaped":
        return v instanceof Py.Markup;
      case "lower":
        return PyString.isLower(PyText.str(v));
      case "upper":
        return PyString.isUpper(PyText.str(v));
      case "even":
        return PyOps.eq(PyOps.arith("%", v, 2L), 0L);
      case "odd":
        return PyOps.eq(PyOps.arith("%", v, 2L), 1L);
      case "divisibleby":
        return PyOps.eq(PyOps.arith("%", v, arg(args, kw, 0, "num")), 0L);
      case "eq":
      case "equalto":
      case "==":
        return PyOps.eq(v, arg(args, kw, 0, "other"));
      case "ne":
      case "!=":
        return !PyOps.eq(v, arg(args, kw, 0, "other"));
      case "lt":
      case "lessthan":
      case "<":
        return PyOps.compare(v, arg(args, kw, 0, "other"), "<") < 0;
      case "le":
      case "<=":
        return PyOps.compare(v, arg(args, kw, 0, "other"), "<=") <= 0;
      case "gt":
      case "greaterthan":
      case ">":
        return PyOps.compare(v, arg(args, kw, 0, "other"), ">") > 0;
      case "ge":
      case ">=":
        return PyOps.compare(v, arg(args, kw, 0, "other"), ">=") >= 0;
      case "in":
        return Py.contains(arg(args, kw, 0, "seq"), v);
      case "sameas":
        {
          Object o = arg(args, kw, 0, "other");
          if (v == null || o == null || v instanceof Boolean || o instanceof Boolean) {
            return v == null ? o == null : v.equals(o);
          }
          return v == o
              || (Py.isInt(v)
                  && Py.isInt(o)
                  && PyOps.eq(v, o)
                  && Math.abs(PyOps.toClippedLong(v)) <= 256);
        }
      case "filter":
        return v instanceof String s && Filters.NAMES.contains(s);
      case "test":
        return v instanceof String s && NAMES.contains(s);
      default:
        throw TemplateException.runtime("No test named '" + name + "'.");
    }
  }

  private static Object arg(List<Object> args, Map<String, Object> kw, int i, String name) {
    if (i < args.size()) {
      return args.get(i);
    }
    if (kw.containsKey(name)) {
      return kw.get(name);
    }
    throw TemplateException.runtime("test is missing its argument '" + name + "'");
  }
}
