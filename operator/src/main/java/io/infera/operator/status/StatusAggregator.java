package io.infera.operator.status;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.infera.operator.api.v1alpha1.Conditions;
import io.infera.operator.api.v1alpha1.InferaDeploymentStatus;
import io.infera.operator.api.v1alpha1.Phase;
import io.infera.operator.api.v1alpha1.PoolStatus;
import io.infera.operator.api.v1alpha1.RouterStatus;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The one place that turns an {@link Observation} into {@code InferaDeploymentStatus}.
 *
 * <p>Pure: the previous status and the clock are parameters. Conditions carry the observed
 * generation; a condition's {@code lastTransitionTime} is kept unless its {@code status} flips.
 * Values that move all the time are rounded (lag to 0.1 s, hit ratio to 0.001) so that a quiet
 * fleet gives the same status twice and the reconciler writes nothing.
 */
public final class StatusAggregator {

  /** KV events later than this make EventsFlowing False: routing runs on a stale view. */
  public static final double EVENT_LAG_LIMIT_SECONDS = 30.0;

  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  private StatusAggregator() {}

  public static InferaDeploymentStatus aggregate(
      InferaDeploymentStatus previous, Observation o, Instant now) {
    String time = now.truncatedTo(ChronoUnit.SECONDS).toString();
    List<Condition> before = previous == null ? List.of() : previous.getConditions();
    Fleet f = Fleet.of(o);

    InferaDeploymentStatus s = new InferaDeploymentStatus();
    s.setObservedGeneration(o.generation());
    s.setRoutersSummary(o.router().ready() + "/" + o.router().desired());
    s.setWorkersSummary(f.workersReady + "/" + f.workersDesired);
    List<PoolStatus> pools = new ArrayList<>();
    for (Observation.Pool p : o.pools()) {
      pools.add(new PoolStatus(p.name(), p.role(), p.workload().desired(), p.workload().ready()));
    }
    s.setPools(pools);
    s.setRouter(router(o));
    if (o.routerView() instanceof RouterFetch.Known k && k.view().hitRatio() != null) {
      s.setHitPercent(String.format(Locale.ROOT, "%.1f%%", k.view().hitRatio() * 100));
    }

    Phase phase;
    List<Condition> conditions = new ArrayList<>();
    String counts =
        "routers " + s.getRoutersSummary() + ", workers " + s.getWorkersSummary() + " ready";
    if (o.spec() instanceof Observation.Invalid inv) {
      phase = Phase.DEGRADED;
      String kept = "the spec is refused, children are left as they were";
      conditions.add(cond(Conditions.READY, false, inv.reason(), kept + " (" + counts + ")"));
      conditions.add(cond(Conditions.PROGRESSING, false, inv.reason(), kept));
      conditions.add(cond(Conditions.DEGRADED, true, inv.reason(), inv.message()));
    } else if (!f.stalled.isEmpty()) {
      phase = Phase.DEGRADED;
      String msg = String.join("; ", f.stalled);
      conditions.add(cond(Conditions.READY, false, Conditions.REASON_ROLLOUT_STALLED, counts));
      conditions.add(cond(Conditions.PROGRESSING, false, Conditions.REASON_ROLLOUT_STALLED, msg));
      conditions.add(cond(Conditions.DEGRADED, true, Conditions.REASON_ROLLOUT_STALLED, msg));
    } else {
      boolean rolling = !f.notRolledOut.isEmpty();
      if (!rolling) {
        phase = Phase.READY;
      } else if (f.anyReady) {
        phase = Phase.PROGRESSING;
      } else {
        phase = Phase.PENDING;
      }
      String ready =
          switch (phase) {
            case READY -> Conditions.REASON_ALL_READY;
            case PENDING -> Conditions.REASON_WAITING;
            default -> Conditions.REASON_ROLLING_OUT;
          };
      conditions.add(cond(Conditions.READY, phase == Phase.READY, ready, counts));
      conditions.add(
          rolling
              ? cond(
                  Conditions.PROGRESSING,
                  true,
                  Conditions.REASON_ROLLING_OUT,
                  "waiting for " + String.join(", ", f.notRolledOut))
              : cond(
                  Conditions.PROGRESSING,
                  false,
                  Conditions.REASON_ROLLED_OUT,
                  "every workload runs generation " + o.generation()));
      conditions.add(
          cond(Conditions.DEGRADED, false, Conditions.REASON_AS_EXPECTED, "no failure observed"));
    }
    conditions.add(eventsFlowing(o.routerView()));
    conditions.add(indexAccurate(o.routerView()));
    conditions.add(renderParity(o.routerView()));
    s.setPhase(phase);
    for (Condition c : conditions) {
      c.setObservedGeneration(o.generation());
      Condition old = find(before, c.getType());
      c.setLastTransitionTime(
          old != null && Objects.equals(old.getStatus(), c.getStatus())
              ? old.getLastTransitionTime()
              : time);
    }
    s.setConditions(conditions);
    return s;
  }

  /** Whether two statuses would serialize alike (then the reconciler writes nothing). */
  public static boolean same(InferaDeploymentStatus a, InferaDeploymentStatus b) {
    JsonNode x = JSON.convertValue(a, JsonNode.class);
    JsonNode y = JSON.convertValue(b, JsonNode.class);
    return Objects.equals(x, y);
  }

  /**
   * Whether the Degraded condition of {@code next} differs from the one already reported in {@code
   * previous} (status, reason, message or generation): a refusal that deserves a new Warning event,
   * so that a refused spec records one event per generation and message, not one per resync.
   *
   * @param previous null before the first status write
   */
  public static boolean degradedChanged(
      InferaDeploymentStatus previous, InferaDeploymentStatus next) {
    Condition now = find(next.getConditions(), Conditions.DEGRADED);
    Condition before =
        previous == null ? null : find(previous.getConditions(), Conditions.DEGRADED);
    return before == null
        || !Objects.equals(before.getStatus(), now.getStatus())
        || !Objects.equals(before.getReason(), now.getReason())
        || !Objects.equals(before.getMessage(), now.getMessage())
        || !Objects.equals(before.getObservedGeneration(), now.getObservedGeneration());
  }

  /** The condition of {@code type}, or null. */
  public static Condition find(List<Condition> conditions, String type) {
    if (conditions == null) {
      return null;
    }
    for (Condition c : conditions) {
      if (c != null && type.equals(c.getType())) {
        return c;
      }
    }
    return null;
  }

  private static RouterStatus router(Observation o) {
    RouterStatus r = new RouterStatus();
    r.setReplicas(o.router().desired());
    r.setReadyReplicas(o.router().ready());
    if (o.routerView() instanceof RouterFetch.Known k) {
      RouterView v = k.view();
      r.setWorkers(v.workers());
      r.setIndexedBlocks(v.indexedBlocks());
      r.setEventLagSeconds(
          v.maxEventLagSeconds() == null ? null : round(v.maxEventLagSeconds(), 10));
      r.setHitRatio(v.hitRatio() == null ? null : round(v.hitRatio(), 1000));
    }
    return r;
  }

  private static Condition eventsFlowing(RouterFetch fetch) {
    if (fetch instanceof RouterFetch.Known k) {
      return eventsFlowing(k.view());
    }
    return new ConditionBuilder()
        .withType(Conditions.EVENTS_FLOWING)
        .withStatus("Unknown")
        .withReason(Conditions.REASON_ROUTER_STATUS_UNAVAILABLE)
        .withMessage(((RouterFetch.Unknown) fetch).reason())
        .build();
  }

  /**
   * The router's {@code IndexAccurate}, reason copied. The message is the operator's own text for
   * the reason (the router's carries window numbers that move with every request; they stay in
   * {@code GET /v1/admin/status}), so that a steady condition writes nothing.
   */
  private static Condition indexAccurate(RouterFetch fetch) {
    String type = Conditions.INDEX_ACCURATE;
    if (!(fetch instanceof RouterFetch.Known k)) {
      return new ConditionBuilder()
          .withType(type)
          .withStatus("Unknown")
          .withReason(Conditions.REASON_ROUTER_STATUS_UNAVAILABLE)
          .withMessage(((RouterFetch.Unknown) fetch).reason())
          .build();
    }
    RouterView.IndexAccurate a = k.view().indexAccurate();
    if (a == null) {
      return new ConditionBuilder()
          .withType(type)
          .withStatus("Unknown")
          .withReason(Conditions.REASON_NOT_MEASURED)
          .withMessage("the router's status reports no index accuracy (an older router)")
          .build();
    }
    String message =
        switch (a.reason()) {
          case "Accurate" -> "the engines' reported cache hits confirm the routers' predictions";
          case "PhantomHits" ->
              "the routers predict cache hits the engines do not report (missed evictions or"
                  + " restarts): see the router's /v1/admin/status index_accurate";
          case "MissedHits" ->
              "the engines report cache hits the routers did not predict (dropped or late KV"
                  + " events): see the router's /v1/admin/status index_accurate";
          case "NotReported" ->
              "the engines' answers carry no usage.prompt_tokens_details.cached_tokens (vLLM:"
                  + " --enable-prompt-tokens-details; SGLang: --enable-cache-report)";
          case "TooFewSamples" -> "too few answers reporting cached tokens yet";
          default -> a.message();
        };
    return new ConditionBuilder()
        .withType(type)
        .withStatus(a.status())
        .withReason(a.reason())
        .withMessage(message)
        .build();
  }

  /**
   * The router's {@code RenderParity}, status and reason copied. The message is the operator's own
   * text for the reason, naming the diverging workers (stable while the same workers diverge), so
   * that a steady condition writes nothing; the per-case detail stays in the router's status.
   */
  private static Condition renderParity(RouterFetch fetch) {
    String type = Conditions.RENDER_PARITY;
    if (!(fetch instanceof RouterFetch.Known k)) {
      return new ConditionBuilder()
          .withType(type)
          .withStatus("Unknown")
          .withReason(Conditions.REASON_ROUTER_STATUS_UNAVAILABLE)
          .withMessage(((RouterFetch.Unknown) fetch).reason())
          .build();
    }
    RouterView.RenderParity p = k.view().renderParity();
    if (p == null) {
      return new ConditionBuilder()
          .withType(type)
          .withStatus("Unknown")
          .withReason(Conditions.REASON_NOT_MEASURED)
          .withMessage("the router's status reports no render parity (an older router)")
          .build();
    }
    String message =
        switch (p.reason()) {
          case "Match" -> "every worker tokenizes the probe conversations as the routers do";
          case "Diverged" ->
              "workers render chats differently from the routers ("
                  + String.join(", ", p.diverged())
                  + "); their requests use engine tokenization: give the router the engines' chat"
                  + " template (see the router's /v1/admin/status render_parity)";
          case "NotProbed" -> "some workers are not probed yet";
          case "ProbeFailed" ->
              "some workers' /tokenize could not be read (retried): see the router's"
                  + " /v1/admin/status render_parity";
          case "Unsupported" ->
              "some workers serve no /tokenize with messages: their render parity is unknown";
          case "Disabled" ->
              "render parity probing is off (or the routers use engine tokenization)";
          case "NoWorkers" -> "the routers discovered no worker";
          default -> p.message();
        };
    return new ConditionBuilder()
        .withType(type)
        .withStatus(p.status())
        .withReason(p.reason())
        .withMessage(message)
        .build();
  }

  private static Condition eventsFlowing(RouterView v) {
    String type = Conditions.EVENTS_FLOWING;
    if (v.workers() == 0) {
      return cond(type, false, Conditions.REASON_NO_WORKERS, "the routers discovered no worker");
    }
    if (v.sources() == 0) {
      return cond(
          type,
          false,
          Conditions.REASON_NO_KV_EVENTS,
          v.workers() + " workers discovered, none has published a KV event yet");
    }
    if (v.degradedSources() > 0) {
      return cond(
          type,
          false,
          Conditions.REASON_SOURCES_DEGRADED,
          v.degradedSources()
              + " of "
              + v.sources()
              + " KV-event sources have a sequence gap not yet resynced");
    }
    if (v.maxEventLagSeconds() != null && v.maxEventLagSeconds() > EVENT_LAG_LIMIT_SECONDS) {
      return cond(
          type,
          false,
          Conditions.REASON_EVENT_LAG,
          "KV events arrive more than "
              + (int) EVENT_LAG_LIMIT_SECONDS
              + " s late; routing runs on a stale cache view");
    }
    if (!v.blockSizeOverridden().isEmpty()) {
      return cond(
          type,
          true,
          Conditions.REASON_BLOCK_SIZE_OVERRIDDEN,
          "KV events from "
              + v.sources()
              + " sources reach the routers; the attention backend forced another block size"
              + " than spec.pageSize on "
              + String.join(", ", v.blockSizeOverridden())
              + " (the routers hash their requests at that size)");
    }
    return cond(
        type,
        true,
        Conditions.REASON_EVENTS_FLOWING,
        "KV events from " + v.sources() + " sources reach the routers");
  }

  private static Condition cond(String type, boolean status, String reason, String message) {
    return new ConditionBuilder()
        .withType(type)
        .withStatus(status ? "True" : "False")
        .withReason(reason)
        .withMessage(message)
        .build();
  }

  private static double round(double v, int scale) {
    return Math.round(v * scale) / (double) scale;
  }

  /** Totals over every workload. */
  private record Fleet(
      int workersReady,
      int workersDesired,
      boolean anyReady,
      List<String> notRolledOut,
      List<String> stalled) {

    static Fleet of(Observation o) {
      List<WorkloadState> all = new ArrayList<>();
      all.add(o.router());
      o.nats().ifPresent(all::add);
      int ready = 0;
      int desired = 0;
      for (Observation.Pool p : o.pools()) {
        all.add(p.workload());
        ready += p.workload().ready();
        desired += p.workload().desired();
      }
      List<String> notRolledOut = new ArrayList<>();
      List<String> stalled = new ArrayList<>();
      // Pending until a router or a worker serves (NATS alone serves no request).
      boolean anyReady = o.router().ready() > 0 || ready > 0;
      for (WorkloadState w : all) {
        if (!w.rolledOut()) {
          notRolledOut.add(w.name());
        }
        if (w.stalled() != null) {
          stalled.add(w.stalled());
        }
      }
      return new Fleet(ready, desired, anyReady, notRolledOut, stalled);
    }
  }
}
