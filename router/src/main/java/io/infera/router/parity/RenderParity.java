package io.infera.router.parity;

import io.infera.router.kv.WorkerId;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Every worker's render-parity verdict: written by the prober (one probe per worker at a time),
 * read by the request path ({@link #variants}), {@code GET /v1/admin/status} ({@link #condition},
 * {@link #of}) and the metrics. Readers see immutable snapshots; writers serialise on this object.
 */
public final class RenderParity implements MeterBinder {

  /** Workers named in a condition message at most. */
  public static final int MAX_NAMED = 10;

  /**
   * The fleet-wide condition, as the operator copies it into the CR's {@code RenderParity}.
   *
   * @param status {@code True} (every worker matches), {@code False} (one diverges) or {@code
   *     Unknown}
   * @param reason CamelCase: {@code Match}, {@code Diverged}, {@code NotProbed}, {@code
   *     ProbeFailed}, {@code Unsupported}, {@code NoWorkers}, {@code Disabled}
   * @param diverged the diverging workers, sorted, at most {@link #MAX_NAMED}
   */
  public record Condition(String status, String reason, String message, List<String> diverged) {
    public Condition {
      diverged = List.copyOf(diverged);
    }
  }

  /** One template variant of the diverging workers: they render alike. */
  public record Variant(long fingerprint, List<WorkerId> workers) {
    public Variant {
      workers = List.copyOf(workers);
    }
  }

  private final boolean enabled;
  private final String disabledWhy;
  private volatile Map<WorkerId, WorkerParity> byWorker = Map.of();
  private volatile List<Variant> chatVariants = List.of();
  private volatile List<Variant> textVariants = List.of();
  private MultiGauge perWorker;
  private final Map<String, Counter> probes = new LinkedHashMap<>();
  private Counter engineTokens;
  private Counter estimates;

  /**
   * @param disabledWhy null to probe; else why not (every worker is then {@code disabled})
   */
  public RenderParity(String disabledWhy) {
    this.enabled = disabledWhy == null;
    this.disabledWhy = disabledWhy;
  }

  public boolean enabled() {
    return enabled;
  }

  /** The current workers: new ones start pending (or disabled), gone ones are forgotten. */
  public synchronized void workers(Collection<WorkerId> current) {
    Map<WorkerId, WorkerParity> next = new TreeMap<>();
    for (WorkerId id : current) {
      WorkerParity p = byWorker.get(id);
      next.put(id, p != null ? p : initial());
    }
    publish(next);
  }

  private WorkerParity initial() {
    return enabled
        ? WorkerParity.PENDING
        : new WorkerParity(ParityStatus.DISABLED, null, 0, List.of(), disabledWhy, 0);
  }

  /** A probe's verdict for a worker still known (ignored for one that left meanwhile). */
  public synchronized void record(WorkerId id, WorkerParity verdict, ParitySchedule.Trigger why) {
    Counter c = probes.get(why.label() + "/" + verdict.status().label());
    if (c != null) {
      c.increment();
    }
    if (!byWorker.containsKey(id)) {
      return;
    }
    Map<WorkerId, WorkerParity> next = new TreeMap<>(byWorker);
    next.put(id, verdict);
    publish(next);
  }

  private void publish(Map<WorkerId, WorkerParity> next) {
    byWorker = Map.copyOf(next);
    chatVariants = variants(next, true);
    textVariants = variants(next, false);
    refreshGauge();
  }

  private static List<Variant> variants(Map<WorkerId, WorkerParity> all, boolean chat) {
    Map<Long, List<WorkerId>> groups = new TreeMap<>();
    for (Map.Entry<WorkerId, WorkerParity> e : new TreeMap<>(all).entrySet()) {
      if (e.getValue().distrusts(chat)) {
        groups.computeIfAbsent(e.getValue().variant(), v -> new ArrayList<>()).add(e.getKey());
      }
    }
    List<Variant> out = new ArrayList<>();
    groups.forEach((k, v) -> out.add(new Variant(k, v)));
    return List.copyOf(out);
  }

  /**
   * The template variants whose workers must not be matched with the router's own tokens for a chat
   * ({@code chat}) or text request; empty (the common case, no allocation) when none diverge.
   */
  public List<Variant> variants(boolean chat) {
    return chat ? chatVariants : textVariants;
  }

  /** A worker's verdict: pending for one the table has not seen. */
  public WorkerParity of(WorkerId id) {
    WorkerParity p = byWorker.get(id);
    return p == null ? initial() : p;
  }

  public Map<WorkerId, WorkerParity> all() {
    return byWorker;
  }

  /** Counts a request whose pick matched diverging workers with the engine's tokens. */
  public void usedEngineTokens() {
    if (engineTokens != null) {
      engineTokens.increment();
    }
  }

  /** Counts a request whose diverging workers got no cache term (their tokens unobtainable). */
  public void usedEstimate() {
    if (estimates != null) {
      estimates.increment();
    }
  }

  /** The fleet-wide condition (see {@link Condition}). */
  public Condition condition() {
    Map<WorkerId, WorkerParity> all = byWorker;
    if (!enabled) {
      return new Condition("Unknown", "Disabled", disabledWhy, List.of());
    }
    if (all.isEmpty()) {
      return new Condition("Unknown", "NoWorkers", "no worker discovered", List.of());
    }
    Map<ParityStatus, List<WorkerId>> by = new EnumMap<>(ParityStatus.class);
    for (Map.Entry<WorkerId, WorkerParity> e : new TreeMap<>(all).entrySet()) {
      by.computeIfAbsent(e.getValue().status(), s -> new ArrayList<>()).add(e.getKey());
    }
    List<WorkerId> diverged = by.getOrDefault(ParityStatus.DIVERGED, List.of());
    if (!diverged.isEmpty()) {
      List<String> named = new ArrayList<>();
      for (WorkerId id : diverged.subList(0, Math.min(MAX_NAMED, diverged.size()))) {
        named.add(id.value());
      }
      WorkerParity first = all.get(diverged.get(0));
      return new Condition(
          "False",
          "Diverged",
          diverged.size()
              + " of "
              + all.size()
              + " workers render differently from the router ("
              + String.join(", ", named)
              + (diverged.size() > named.size() ? ", …" : "")
              + "); their requests use engine tokenization. "
              + diverged.get(0).value()
              + ": "
              + first.detail(),
          named);
    }
    for (ParityStatus s :
        List.of(ParityStatus.PENDING, ParityStatus.FAILED, ParityStatus.UNSUPPORTED)) {
      List<WorkerId> ids = by.get(s);
      if (ids != null) {
        String reason =
            switch (s) {
              case PENDING -> "NotProbed";
              case FAILED -> "ProbeFailed";
              default -> "Unsupported";
            };
        String what =
            switch (s) {
              case PENDING -> " not probed yet";
              case FAILED -> " could not be probed (retried): " + all.get(ids.get(0)).detail();
              default ->
                  " serve no /tokenize with messages, parity unknown: "
                      + all.get(ids.get(0)).detail();
            };
        return new Condition(
            "Unknown", reason, ids.size() + " of " + all.size() + " workers" + what, List.of());
      }
    }
    return new Condition(
        "True",
        "Match",
        "every worker (" + all.size() + ") tokenizes the probe set as the router does",
        List.of());
  }

  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    for (ParityStatus s : ParityStatus.values()) {
      Gauge.builder(
              "infera_render_parity_workers",
              this,
              p -> p.byWorker.values().stream().filter(w -> w.status() == s).count())
          .description("workers per render-parity status (docs/routing.md, \"Render parity\")")
          .tag("status", s.label())
          .register(registry);
    }
    for (ParitySchedule.Trigger t : ParitySchedule.Trigger.values()) {
      for (ParityStatus s :
          List.of(
              ParityStatus.MATCH,
              ParityStatus.DIVERGED,
              ParityStatus.UNSUPPORTED,
              ParityStatus.FAILED)) {
        probes.put(
            t.label() + "/" + s.label(),
            Counter.builder("infera_render_parity_probes")
                .description("render-parity probes by trigger and result")
                .tag("trigger", t.label())
                .tag("result", s.label())
                .register(registry));
      }
    }
    engineTokens =
        Counter.builder("infera_render_parity_requests")
            .description(
                "requests whose pick matched diverging workers with other tokens than the"
                    + " router's own: engine = the worker's /tokenize, estimate = no cache term")
            .tag("path", "engine")
            .register(registry);
    estimates =
        Counter.builder("infera_render_parity_requests")
            .description(
                "requests whose pick matched diverging workers with other tokens than the"
                    + " router's own: engine = the worker's /tokenize, estimate = no cache term")
            .tag("path", "estimate")
            .register(registry);
    perWorker =
        MultiGauge.builder("infera_render_parity_worker")
            .description("1 per worker with its render-parity status as the label")
            .register(registry);
    refreshGauge();
  }

  private void refreshGauge() {
    if (perWorker == null) {
      return;
    }
    List<MultiGauge.Row<?>> rows = new ArrayList<>();
    for (Map.Entry<WorkerId, WorkerParity> e : byWorker.entrySet()) {
      rows.add(
          MultiGauge.Row.of(
              Tags.of("worker", e.getKey().value(), "status", e.getValue().status().label()), 1));
    }
    perWorker.register(rows, true);
  }

  /** The worker ids a set of variants covers. */
  public static Set<WorkerId> workersOf(List<Variant> variants) {
    Set<WorkerId> out = new java.util.HashSet<>();
    for (Variant v : variants) {
      out.addAll(v.workers());
    }
    return out;
  }
}
