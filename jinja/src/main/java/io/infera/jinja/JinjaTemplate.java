package io.infera.jinja;

import java.time.Clock;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A parsed chat template: parse once, render many times from any thread.
 *
 * <p>{@link #render} takes the variables {@code apply_chat_template} passes ({@code messages},
 * {@code tools}, {@code documents}, {@code add_generation_prompt}, the special tokens, extra
 * keyword arguments) as plain Java values (maps, lists, strings, numbers, booleans, null) and
 * returns exactly what Python's Jinja2 renders.
 */
public final class JinjaTemplate {

  private final String source;
  private final List<Ast.Node> body;

  private JinjaTemplate(String source, List<Ast.Node> body) {
    this.source = source;
    this.body = body;
  }

  /**
   * @throws TemplateException of kind {@code SYNTAX} when the template does not parse
   */
  public static JinjaTemplate parse(String source) {
    Objects.requireNonNull(source, "source");
    try {
      return new JinjaTemplate(source, Parser.parse(source));
    } catch (StackOverflowError e) {
      // The parser recurses per nesting level; thousands of '(' or '[' must not kill the thread.
      throw new TemplateException(TemplateException.Kind.SYNTAX, "template nesting too deep");
    }
  }

  private static final int CACHE_SIZE = 64;
  private static final Map<String, JinjaTemplate> CACHE =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, JinjaTemplate> eldest) {
          return size() > CACHE_SIZE;
        }
      };

  /** Parses once per distinct source (bounded LRU): for templates that arrive per request. */
  public static JinjaTemplate parseCached(String source) {
    synchronized (CACHE) {
      JinjaTemplate t = CACHE.get(source);
      if (t != null) {
        return t;
      }
    }
    JinjaTemplate t = parse(source);
    synchronized (CACHE) {
      CACHE.put(source, t);
    }
    return t;
  }

  public String source() {
    return source;
  }

  /** Renders with the system clock for {@code strftime_now} and the default budget. */
  public String render(Map<String, ?> variables) {
    return render(variables, Clock.systemDefaultZone());
  }

  /** Renders with the {@linkplain RenderBudget#DEFAULT default budget}. */
  public String render(Map<String, ?> variables, Clock clock) {
    return render(variables, clock, RenderBudget.DEFAULT);
  }

  /**
   * @param clock the instant {@code strftime_now} formats (tests pin it)
   * @param budget the limits of this render, scaled by the size of {@code variables}
   * @throws TemplateBudgetException when the render would exceed {@code budget}
   * @throws TemplateException when rendering fails ({@code raise_exception}, undefined values,
   *     sandbox violations, type errors)
   */
  public String render(Map<String, ?> variables, Clock clock, RenderBudget budget) {
    return render(variables, clock, budget, m -> {});
  }

  /** As {@link #render(Map, Clock, RenderBudget)}, reporting what the render used (tests). */
  String render(
      Map<String, ?> variables,
      Clock clock,
      RenderBudget budget,
      java.util.function.Consumer<Meter> usage) {
    Objects.requireNonNull(budget, "budget");
    Map<String, Object> context = new HashMap<>();
    long inputSize = 0;
    try {
      for (Map.Entry<String, ?> e : variables.entrySet()) {
        Object v = Py.from(e.getValue());
        context.put(e.getKey(), v);
        inputSize = saturatedAdd(inputSize, inputSize(v, 0));
      }
    } catch (StackOverflowError e) {
      throw new TemplateBudgetException(TemplateBudgetException.Limit.DEPTH, budget.depth());
    }
    Meter meter = Meter.of(budget, inputSize);
    Meter previous = meter.install();
    try {
      String out = new Renderer(globals(clock), meter).render(body, context);
      usage.accept(meter);
      return out;
    } catch (StackOverflowError e) {
      // The budget's depth bounds calls; this is the last line for deep expression nesting.
      throw new TemplateBudgetException(TemplateBudgetException.Limit.DEPTH, meter.maxDepth);
    } finally {
      Meter.restore(previous);
    }
  }

  /**
   * The size a render's budget scales with: characters of every string plus {@link
   * RenderBudget#VALUE_OVERHEAD} per value. {@code Py.from} copied the variables into trees, so the
   * walk is linear; the depth guard only protects the stack.
   */
  static long inputSize(Object v, int depth) {
    long size = RenderBudget.VALUE_OVERHEAD;
    if (depth > 10_000) {
      return size;
    }
    if (v instanceof String s) {
      size += s.length();
    } else if (v instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        size = saturatedAdd(size, inputSize(e.getKey(), depth + 1));
        size = saturatedAdd(size, inputSize(e.getValue(), depth + 1));
      }
    } else if (v instanceof List<?> l) {
      for (Object o : l) {
        size = saturatedAdd(size, inputSize(o, depth + 1));
      }
    }
    return size;
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return r < 0 ? Long.MAX_VALUE : r;
  }

  /** Jinja's {@code cycler(*items)}: {@code next()}, {@code reset()}, {@code current}. */
  private static final class Cycler implements Py.Attrs {
    private final List<Object> items;
    private int pos;

    Cycler(List<Object> items) {
      if (items.isEmpty()) {
        throw new TemplateException(
            TemplateException.Kind.RUNTIME, "at least one item has to be provided");
      }
      this.items = List.copyOf(items);
    }

    @Override
    public Object attr(String name) {
      return switch (name) {
        case "current" -> items.get(pos);
        case "next" ->
            (Py.Callable)
                (a, k) -> {
                  Object v = items.get(pos);
                  pos = (pos + 1) % items.size();
                  return v;
                };
        case "reset" ->
            (Py.Callable)
                (a, k) -> {
                  pos = 0;
                  return null;
                };
        default -> Py.Undefined.of(this, name);
      };
    }
  }

  private static Map<String, Object> globals(Clock clock) {
    Map<String, Object> g = new HashMap<>();
    g.put(
        "raise_exception",
        (Py.Callable)
            (args, kw) -> {
              Object msg = args.isEmpty() ? kw.get("message") : args.get(0);
              throw new TemplateException(TemplateException.Kind.RAISED, PyText.str(msg));
            });
    g.put(
        "strftime_now",
        (Py.Callable)
            (args, kw) ->
                Strftime.format(
                    PyText.str(args.isEmpty() ? kw.get("format") : args.get(0)),
                    LocalDateTime.now(clock)));
    g.put(
        "range",
        (Py.Callable)
            (args, kw) -> {
              long start = 0;
              long stop;
              long step = 1;
              if (args.size() == 1) {
                stop = PyOps.toLong(args.get(0));
              } else if (args.size() >= 2) {
                start = PyOps.toLong(args.get(0));
                stop = PyOps.toLong(args.get(1));
                if (args.size() > 2) {
                  step = PyOps.toLong(args.get(2));
                }
              } else {
                throw TemplateException.runtime("range expected at least 1 argument, got 0");
              }
              if (step == 0) {
                throw TemplateException.runtime("range() arg 3 must not be zero");
              }
              Py.Range r = new Py.Range(start, stop, step);
              if (r.size() > 100_000) {
                throw TemplateException.security(
                    "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
              }
              return r;
            });
    g.put(
        "dict",
        (Py.Callable)
            (args, kw) -> {
              // dict(d, **more) in a loop copies d each time: the copy is charged.
              long size = kw.size();
              if (!args.isEmpty() && args.get(0) instanceof Map<?, ?> src) {
                size += src.size();
              }
              Meter.current().items(size * 2);
              Map<Object, Object> m = new LinkedHashMap<>();
              if (!args.isEmpty() && args.get(0) instanceof Map<?, ?> src) {
                m.putAll(src);
              }
              m.putAll(kw);
              return m;
            });
    g.put(
        "namespace",
        (Py.Callable)
            (args, kw) -> {
              Meter.current()
                  .items(
                      2L
                          * (kw.size()
                              + (!args.isEmpty() && args.get(0) instanceof Map<?, ?> src
                                  ? src.size()
                                  : 0)));
              Py.Namespace ns = new Py.Namespace();
              if (!args.isEmpty() && args.get(0) instanceof Map<?, ?> src) {
                src.forEach((k, v) -> ns.attrs.put(PyText.str(k), v));
              }
              ns.attrs.putAll(kw);
              return ns;
            });
    g.put("cycler", (Py.Callable) (args, kw) -> new Cycler(args));
    g.put(
        "joiner",
        (Py.Callable)
            (args, kw) -> {
              String sep =
                  args.isEmpty()
                      ? PyText.str(kw.getOrDefault("sep", ", "))
                      : PyText.str(args.get(0));
              boolean[] used = {false};
              return (Py.Callable)
                  (a2, k2) -> {
                    if (!used[0]) {
                      used[0] = true;
                      return "";
                    }
                    return sep;
                  };
            });
    return g;
  }
}
