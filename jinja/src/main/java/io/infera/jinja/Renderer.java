package io.infera.jinja;

import io.infera.jinja.Ast.Expr;
import io.infera.jinja.Ast.Node;
import io.infera.jinja.TemplateException.Kind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Evaluates a parsed template. One instance per render (not thread-safe); the AST is shared.
 *
 * <p>Scoping follows Jinja2: {@code if} shares its scope; every {@code for} iteration, macro call
 * and {@code with} block gets a fresh scope over its parent, so {@code set} inside them does not
 * leak out (use {@code namespace()} for that); top-level {@code set} writes the template scope.
 */
final class Renderer {

  private static final int NORMAL = 0;
  private static final int BREAK = 1;
  private static final int CONTINUE = 2;

  /** A variable scope; lookups fall through to the parent, assignments stay here. */
  static final class Scope {
    final Map<String, Object> vars = new HashMap<>();
    final Scope parent;

    Scope(Scope parent) {
      this.parent = parent;
    }

    Object lookup(String name) {
      for (Scope s = this; s != null; s = s.parent) {
        Object v = s.vars.get(name);
        if (v != null || s.vars.containsKey(name)) {
          return v;
        }
      }
      return Py.Undefined.named(name);
    }
  }

  private static final Object NOTHING = new Object();

  private final Map<String, Object> globals;
  private final Meter meter;

  Renderer(Map<String, Object> globals, Meter meter) {
    this.globals = globals;
    this.meter = meter;
  }

  String render(List<Node> body, Map<String, Object> context) {
    Scope root = new Scope(null);
    root.vars.putAll(globals);
    root.vars.putAll(context);
    StringBuilder out = new StringBuilder(4096);
    exec(body, root, out);
    return out.toString();
  }

  // ------------------------------------------------------------------ statements

  private int exec(List<Node> nodes, Scope scope, StringBuilder out) {
    for (Node n : nodes) {
      int r = exec(n, scope, out);
      if (r != NORMAL) {
        return r;
      }
    }
    return NORMAL;
  }

  private int exec(Node node, Scope scope, StringBuilder out) {
    meter.step();
    if (node instanceof Ast.Text t) {
      emit(out, t.text());
    } else if (node instanceof Ast.Output o) {
      Object v = eval(o.expr(), scope);
      emit(out, v instanceof String s ? s : PyText.str(v));
    } else if (node instanceof Ast.If i) {
      for (int k = 0; k < i.conditions().size(); k++) {
        if (Py.truthy(eval(i.conditions().get(k), scope))) {
          return exec(i.bodies().get(k), scope, out);
        }
      }
      return exec(i.orElse(), scope, out);
    } else if (node instanceof Ast.For f) {
      execFor(f, eval(f.iter(), scope), scope, out, 0);
    } else if (node instanceof Ast.Set s) {
      assign(s.target(), eval(s.value(), scope), scope);
    } else if (node instanceof Ast.SetBlock s) {
      StringBuilder buf = new StringBuilder();
      exec(s.body(), scope, buf);
      Object v = buf.toString();
      for (Ast.Filter f : s.filters()) {
        v = applyFilter(f, v, scope);
      }
      assign(s.target(), v, scope);
    } else if (node instanceof Ast.Macro m) {
      scope.vars.put(m.name(), new Macro(m.name(), m.params(), m.body(), scope));
    } else if (node instanceof Ast.CallBlock c) {
      Macro caller = new Macro("caller", c.params(), c.body(), scope);
      emit(out, PyText.str(call(c.call(), scope, caller)));
    } else if (node instanceof Ast.FilterBlock fb) {
      StringBuilder buf = new StringBuilder();
      exec(fb.body(), scope, buf);
      Object v = buf.toString();
      for (Ast.Filter f : fb.filters()) {
        v = applyFilter(f, v, scope);
      }
      emit(out, PyText.str(v));
    } else if (node instanceof Ast.With w) {
      Scope inner = new Scope(scope);
      List<Object> values = new ArrayList<>();
      for (Expr e : w.values()) {
        values.add(eval(e, scope));
      }
      for (int k = 0; k < w.targets().size(); k++) {
        assign(w.targets().get(k), values.get(k), inner);
      }
      return exec(w.body(), inner, out);
    } else if (node instanceof Ast.Break) {
      return BREAK;
    } else if (node instanceof Ast.Continue) {
      return CONTINUE;
    } else if (node instanceof Ast.Scope s) {
      return exec(s.body(), scope, out);
    }
    return NORMAL;
  }

  /** Output is checked before it is appended; nested bodies (macros, set blocks) count too. */
  private void emit(StringBuilder out, String s) {
    meter.output(s.length());
    meter.grow(out.length(), s.length());
    out.append(s);
  }

  private void step() {
    meter.step();
  }

  private void execFor(Ast.For f, Object iterable, Scope scope, StringBuilder out, int level) {
    if (iterable instanceof Py.Undefined u && u.failKind == Kind.SECURITY) {
      throw u.fail();
    }
    List<Object> items = new ArrayList<>();
    for (Object o : Py.iterate(iterable)) {
      step();
      if (f.filter() != null) {
        Scope probe = new Scope(scope);
        assign(f.target(), o, probe);
        if (!Py.truthy(eval(f.filter(), probe))) {
          continue;
        }
      }
      items.add(o);
    }
    Loop loop = new Loop(items, level, f.recursive() ? f : null, scope);
    // Jinja2 clears its "no iteration" flag at the end of the body, so the else branch also runs
    // when no iteration reached the end (first one broke, or every one continued).
    boolean completed = false;
    for (int i = 0; i < items.size(); i++) {
      step();
      loop.index0 = i;
      Scope iter = new Scope(scope);
      iter.vars.put("loop", loop);
      assign(f.target(), items.get(i), iter);
      int r = exec(f.body(), iter, out);
      if (r == NORMAL) {
        completed = true;
      } else if (r == BREAK) {
        break;
      }
    }
    if (!completed) {
      exec(f.orElse(), scope, out);
    }
  }

  private void assign(Ast.Target target, Object value, Scope scope) {
    if (target instanceof Ast.NameTarget n) {
      scope.vars.put(n.name(), value);
    } else if (target instanceof Ast.AttrTarget a) {
      Object obj = scope.lookup(a.object());
      if (!(obj instanceof Py.Namespace ns)) {
        throw TemplateException.runtime("cannot assign attribute on non-namespace object");
      }
      ns.attrs.put(a.attr(), value);
    } else if (target instanceof Ast.TupleTarget t) {
      List<Object> values = Py.toList(value);
      if (values.size() != t.items().size()) {
        throw TemplateException.runtime(
            values.size() > t.items().size()
                ? "too many values to unpack (expected " + t.items().size() + ")"
                : "not enough values to unpack (expected "
                    + t.items().size()
                    + ", got "
                    + values.size()
                    + ")");
      }
      for (int i = 0; i < values.size(); i++) {
        assign(t.items().get(i), values.get(i), scope);
      }
    }
  }

  // ------------------------------------------------------------------ expressions

  Object eval(Expr e, Scope scope) {
    meter.step();
    if (e instanceof Ast.Literal l) {
      return l.value();
    }
    if (e instanceof Ast.Name n) {
      return scope.lookup(n.name());
    }
    if (e instanceof Ast.GetAttr g) {
      return PyAccess.getattr(eval(g.object(), scope), g.attr());
    }
    if (e instanceof Ast.GetItem g) {
      Object obj = eval(g.object(), scope);
      if (g.key() instanceof Ast.SliceExpr s) {
        return PyAccess.slice(
            obj,
            s.start() == null ? null : eval(s.start(), scope),
            s.stop() == null ? null : eval(s.stop(), scope),
            s.step() == null ? null : eval(s.step(), scope));
      }
      return PyAccess.getitem(obj, eval(g.key(), scope));
    }
    if (e instanceof Ast.Filter f) {
      return applyFilter(f, eval(f.value(), scope), scope);
    }
    if (e instanceof Ast.Test t) {
      Object v = eval(t.value(), scope);
      ArgList args = args(t.args(), null, null, scope);
      boolean r = Tests.test(t.name(), v, args.positional, args.keywords, this);
      return t.negated() != r;
    }
    if (e instanceof Ast.Call c) {
      return call(c, scope, null);
    }
    if (e instanceof Ast.Compare c) {
      Object left = eval(c.first(), scope);
      for (int i = 0; i < c.ops().size(); i++) {
        Object right = eval(c.rest().get(i), scope);
        if (!compare(c.ops().get(i), left, right)) {
          return false;
        }
        left = right;
      }
      return true;
    }
    if (e instanceof Ast.And a) {
      Object l = eval(a.left(), scope);
      return Py.truthy(l) ? eval(a.right(), scope) : l;
    }
    if (e instanceof Ast.Or o) {
      Object l = eval(o.left(), scope);
      return Py.truthy(l) ? l : eval(o.right(), scope);
    }
    if (e instanceof Ast.Not n) {
      return !Py.truthy(eval(n.operand(), scope));
    }
    if (e instanceof Ast.Binary b) {
      return PyOps.arith(b.op(), eval(b.left(), scope), eval(b.right(), scope));
    }
    if (e instanceof Ast.Unary u) {
      Object v = eval(u.operand(), scope);
      return u.op().equals("-") ? PyOps.negate(v) : PyOps.plus(v);
    }
    if (e instanceof Ast.Concat c) {
      // Sizes first, then one exact allocation: 's ~ s' doubling stops before it allocates.
      String[] parts = new String[c.parts().size()];
      long size = 0;
      for (int i = 0; i < parts.length; i++) {
        parts[i] = PyText.str(eval(c.parts().get(i), scope));
        size += parts[i].length();
      }
      meter.value(size);
      StringBuilder sb = new StringBuilder((int) size);
      for (String p : parts) {
        sb.append(p);
      }
      return sb.toString();
    }
    if (e instanceof Ast.CondExpr c) {
      if (Py.truthy(eval(c.cond(), scope))) {
        return eval(c.then(), scope);
      }
      return c.orElse() == null
          ? Py.Undefined.hint(
              "the inline if-expression evaluated to false and no else section was defined.")
          : eval(c.orElse(), scope);
    }
    if (e instanceof Ast.ListExpr l) {
      meter.items(l.items().size());
      List<Object> out = new ArrayList<>(l.items().size());
      for (Expr x : l.items()) {
        out.add(eval(x, scope));
      }
      return out;
    }
    if (e instanceof Ast.TupleExpr t) {
      meter.items(t.items().size());
      List<Object> out = new ArrayList<>(t.items().size());
      for (Expr x : t.items()) {
        out.add(eval(x, scope));
      }
      return new Py.Tuple(out);
    }
    if (e instanceof Ast.DictExpr d) {
      meter.items(d.keys().size());
      Map<Object, Object> out = new LinkedHashMap<>();
      for (int i = 0; i < d.keys().size(); i++) {
        Object k = eval(d.keys().get(i), scope);
        Object existing = PyOps.findKey(out, k);
        out.put(existing == PyOps.NO_KEY ? k : existing, eval(d.values().get(i), scope));
      }
      return out;
    }
    if (e instanceof Ast.SliceExpr) {
      throw TemplateException.runtime("slice outside a subscript");
    }
    throw new IllegalStateException("unknown expression " + e);
  }

  private boolean compare(String op, Object a, Object b) {
    switch (op) {
      case "==":
        return PyOps.eq(a, b);
      case "!=":
        return !PyOps.eq(a, b);
      case "in":
        return Py.contains(b, a);
      case "notin":
        return !Py.contains(b, a);
      default:
        break;
    }
    if ((a instanceof Double x && Double.isNaN(x)) || (b instanceof Double y && Double.isNaN(y))) {
      return false;
    }
    int c = PyOps.compare(a, b, op);
    return switch (op) {
      case "<" -> c < 0;
      case "<=" -> c <= 0;
      case ">" -> c > 0;
      default -> c >= 0;
    };
  }

  private Object call(Ast.Call c, Scope scope, Macro caller) {
    Object callee = eval(c.callee(), scope);
    ArgList args = args(c.args(), c.starArgs(), c.starKwargs(), scope);
    if (caller != null) {
      args.keywords.put("caller", caller);
    }
    meter.enter();
    try {
      return PyAccess.call(callee, args.positional, args.keywords);
    } finally {
      meter.leave();
    }
  }

  private Object applyFilter(Ast.Filter f, Object value, Scope scope) {
    ArgList args = args(f.args(), null, null, scope);
    return Filters.apply(f.name(), value, args.positional, args.keywords, this);
  }

  /** Evaluated call arguments. */
  static final class ArgList {
    final List<Object> positional = new ArrayList<>();
    final Map<String, Object> keywords = new LinkedHashMap<>();
  }

  private ArgList args(List<Ast.Arg> args, Expr star, Expr starstar, Scope scope) {
    ArgList out = new ArgList();
    for (Ast.Arg a : args) {
      Object v = eval(a.value(), scope);
      if (a.name() == null) {
        out.positional.add(v);
      } else {
        out.keywords.put(a.name(), v);
      }
    }
    if (star != null) {
      List<Object> extra = Py.toList(eval(star, scope));
      meter.items(extra.size());
      out.positional.addAll(extra);
    }
    if (starstar != null) {
      Object m = eval(starstar, scope);
      if (!(m instanceof Map<?, ?> map)) {
        throw TemplateException.runtime("argument after ** must be a mapping");
      }
      // f(**d) copies d into the call's keywords (and a macro's kwargs): charged per call.
      meter.items(map.size() * 2L);
      map.forEach((k, v) -> out.keywords.put(PyText.str(k), v));
    }
    return out;
  }

  /** Calls a filter or test by value (used by map/select filters). */
  Object callFilter(String name, Object value, List<Object> args, Map<String, Object> kwargs) {
    return Filters.apply(name, value, args, kwargs, this);
  }

  // ------------------------------------------------------------------ macros and loops

  /** A {@code macro} (or a {@code call} block's {@code caller}) closed over its scope. */
  final class Macro implements Py.Callable {
    final String name;
    final List<Ast.Param> params;
    final List<Node> body;
    final Scope closure;

    Macro(String name, List<Ast.Param> params, List<Node> body, Scope closure) {
      this.name = name;
      this.params = params;
      this.body = body;
      this.closure = closure;
    }

    @Override
    public Object call(List<Object> args, Map<String, Object> kwargs) {
      Scope s = new Scope(closure);
      Map<String, Object> kw = new LinkedHashMap<>(kwargs);
      for (int i = 0; i < params.size(); i++) {
        Ast.Param p = params.get(i);
        Object v;
        if (i < args.size()) {
          v = args.get(i);
          if (kw.containsKey(p.name())) {
            throw TemplateException.runtime(
                "macro '" + name + "' got multiple values for argument '" + p.name() + "'");
          }
        } else if (kw.containsKey(p.name())) {
          v = kw.remove(p.name());
        } else if (p.defaultValue() != null) {
          v = eval(p.defaultValue(), s);
        } else {
          v = Py.Undefined.hint("parameter '" + p.name() + "' was not provided");
        }
        s.vars.put(p.name(), v);
      }
      Object caller = kw.remove("caller");
      if (caller != null) {
        s.vars.put("caller", caller);
      }
      s.vars.put(
          "varargs",
          new Py.Tuple(
              args.size() > params.size() ? args.subList(params.size(), args.size()) : List.of()));
      s.vars.put("kwargs", new LinkedHashMap<Object, Object>(kw));
      StringBuilder out = new StringBuilder();
      exec(body, s, out);
      return out.toString();
    }
  }

  /** Jinja's {@code loop} variable. */
  final class Loop implements Py.Callable, Py.Attrs {
    final List<Object> items;
    final int depth0;
    final Ast.For recursive;
    final Scope scope;
    int index0;
    private Object lastChanged = NOTHING;

    Loop(List<Object> items, int depth0, Ast.For recursive, Scope scope) {
      this.items = items;
      this.depth0 = depth0;
      this.recursive = recursive;
      this.scope = scope;
    }

    @Override
    public Object attr(String name) {
      int n = items.size();
      return switch (name) {
        case "index" -> (long) index0 + 1;
        case "index0" -> (long) index0;
        case "revindex" -> (long) (n - index0);
        case "revindex0" -> (long) (n - index0 - 1);
        case "first" -> index0 == 0;
        case "last" -> index0 == n - 1;
        case "length" -> (long) n;
        case "depth" -> (long) depth0 + 1;
        case "depth0" -> (long) depth0;
        case "previtem" ->
            index0 > 0 ? items.get(index0 - 1) : Py.Undefined.hint("there is no previous item");
        case "nextitem" ->
            index0 < n - 1 ? items.get(index0 + 1) : Py.Undefined.hint("there is no next item");
        case "cycle" ->
            (Py.Callable)
                (args, kw) -> {
                  if (args.isEmpty()) {
                    throw TemplateException.runtime("no items for cycling given");
                  }
                  return args.get(index0 % args.size());
                };
        case "changed" ->
            (Py.Callable)
                (args, kw) -> {
                  Object now = new Py.Tuple(args);
                  if (lastChanged == NOTHING || !PyOps.eq(now, lastChanged)) {
                    lastChanged = now;
                    return true;
                  }
                  return false;
                };
        default -> Py.Undefined.of(this, name);
      };
    }

    /** {@code loop(children)} in a recursive loop. */
    @Override
    public Object call(List<Object> args, Map<String, Object> kwargs) {
      if (recursive == null) {
        throw TemplateException.runtime(
            "Tried to call non recursive loop.  Maybe you forgot the 'recursive' modifier.");
      }
      StringBuilder out = new StringBuilder();
      execFor(recursive, args.isEmpty() ? List.of() : args.get(0), scope, out, depth0 + 1);
      return out.toString();
    }
  }
}
