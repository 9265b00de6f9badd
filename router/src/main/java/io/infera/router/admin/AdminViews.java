package io.infera.router.admin;

import io.infera.router.config.OverlapWeightMode;
import io.infera.router.config.RouterConfig;
import io.infera.router.engineload.EngineLoadTable;
import io.infera.router.events.TransportStatus;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.DropReason;
import io.infera.router.kv.IndexStats;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.WorkerId;
import io.infera.router.parity.CaseResult;
import io.infera.router.parity.Divergence;
import io.infera.router.parity.RenderParity;
import io.infera.router.parity.WorkerParity;
import io.infera.router.policy.Decision;
import io.infera.router.policy.WorkerLoad;
import io.infera.router.policy.tuner.OverlapTuning;
import io.infera.router.policy.tuner.WeightTuner;
import io.infera.router.routing.Fleet;
import io.infera.router.routing.RequestAnalyzer;
import io.infera.router.routing.RoutePlan;
import io.infera.router.routing.SessionAffinity;
import io.infera.router.runtime.RouterRuntime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** JSON documents of the admin endpoints, as plain maps (the HTTP layer serializes them). */
public final class AdminViews {

  private AdminViews() {}

  /** {@code GET /v1/models}. */
  public static Map<String, Object> models(RouterRuntime rt) {
    RouterConfig c = rt.config();
    List<Object> data = new ArrayList<>();
    data.add(model(c.model(), rt.startedAtMillis() / 1000, null));
    for (String lora : c.loraAdapters()) {
      data.add(model(lora, rt.startedAtMillis() / 1000, c.model()));
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("object", "list");
    out.put("data", data);
    return out;
  }

  private static Map<String, Object> model(String id, long created, String parent) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", id);
    m.put("object", "model");
    m.put("created", created);
    m.put("owned_by", "infera");
    m.put("root", parent == null ? id : parent);
    m.put("parent", parent);
    return m;
  }

  /** {@code GET /v1/workers}. */
  public static Map<String, Object> workers(RouterRuntime rt) {
    IndexStats stats = rt.index().stats();
    List<Object> list = new ArrayList<>();
    for (Fleet.Member m : rt.fleet().members()) {
      list.add(worker(rt, m, stats));
    }
    return Redaction.redact(Map.of("workers", list));
  }

  private static Map<String, Object> worker(RouterRuntime rt, Fleet.Member m, IndexStats stats) {
    WorkerLoad l = rt.load().load(m.info().id());
    Map<String, Object> w = new LinkedHashMap<>();
    w.put("id", m.info().id().value());
    w.put("url", m.info().url());
    w.put("pool", m.info().pool());
    w.put("role", m.info().role().wireName());
    w.put("engine", m.info().engine());
    w.put("dp_size", m.info().dpSize());
    w.put("readiness", m.info().readiness().name().toLowerCase(java.util.Locale.ROOT));
    w.put("healthy", m.healthy());
    w.put("breaker", m.breaker().state().name().toLowerCase(java.util.Locale.ROOT));
    w.put("eligibility", m.eligibility(java.util.Set.of()).wireName());
    w.put("in_flight", l.inFlight());
    w.put("active_blocks", l.activeBlocks());
    w.put("recent_blocks", round(l.recentBlocks()));
    w.put("engine_load", engineLoad(rt, m, l));
    w.put("prefill_blocks_per_second", round(rt.load().prefillRate(m.info().id())));
    w.put("indexed_blocks", stats.blocksPerWorker().getOrDefault(m.info().id(), 0L));
    w.put("kv_batches_applied", rt.ingest().applied(m.info().id()));
    w.put("block_size_expected", rt.config().pageSize());
    w.put("block_size_seen", seenBlockSize(stats, m.info().id()));
    w.put("render_parity", workerParity(rt.renderParity().of(m.info().id())));
    return w;
  }

  /** The fleet's render-parity condition (docs/routing.md, "Render parity"). */
  static Map<String, Object> renderParity(RenderParity.Condition c) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("status", c.status());
    out.put("reason", c.reason());
    out.put("message", c.message());
    out.put("diverged", c.diverged());
    return out;
  }

  /** One worker's render parity: status, what differs, per-case comparison, when. */
  static Map<String, Object> workerParity(WorkerParity p) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("status", p.status().label());
    out.put("divergence", p.divergence() == null ? null : p.divergence().label());
    out.put(
        "uses",
        p.distrusts(true)
            ? (p.divergence() == Divergence.TOKENIZER
                ? "engine tokenization"
                : "engine tokenization for chats")
            : "router tokens");
    out.put("detail", p.detail());
    List<Object> cases = new ArrayList<>();
    for (CaseResult r : p.cases()) {
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("name", r.name());
      c.put("match", r.matches());
      c.put("router_tokens", r.routerTokens());
      c.put("engine_tokens", r.engineTokens());
      c.put("first_difference", r.firstDifference() < 0 ? null : r.firstDifference());
      cases.add(c);
    }
    out.put("cases", cases);
    out.put(
        "checked_at",
        p.checkedAtMillis() == 0
            ? null
            : java.time.Instant.ofEpochMilli(p.checkedAtMillis()).toString());
    return out;
  }

  /**
   * A worker's engine-reported load (docs/routing.md, "Engine-reported load"), or null when it is
   * off for the worker; unknown values are null.
   */
  private static Map<String, Object> engineLoad(RouterRuntime rt, Fleet.Member m, WorkerLoad l) {
    EngineLoadTable t = rt.engineLoad();
    if (!t.config().scrapes(m.info().id().value(), m.info().pool())) {
      return null;
    }
    EngineLoadTable.View v = t.view(m.info().id());
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("blocks", round(v.term().blocks()));
    e.put("requests", finite(v.stats() == null ? Double.NaN : v.stats().requests()));
    e.put("kv_usage", finite(v.stats() == null ? Double.NaN : v.stats().kvUsage()));
    e.put("age_ms", v.ageMs() < 0 ? null : v.ageMs());
    e.put("fresh", v.term().known());
    e.put("last_scrape", v.lastOutcome() == null ? null : v.lastOutcome().label());
    e.put("engine_prefix_hit_ratio", finite(v.engineHitRatio()));
    e.put("predicted_prefix_hit_ratio", finite(v.predictedHitRatio()));
    return e;
  }

  private static Object finite(double v) {
    return Double.isFinite(v) ? round(v) : null;
  }

  /**
   * The block size a worker's events use (the largest over its ranks, which normally agree), or
   * null before its first full-attention store.
   */
  static Integer seenBlockSize(IndexStats stats, WorkerId worker) {
    Integer seen = null;
    for (IndexStats.SourceStats s : stats.sources()) {
      if (s.source().worker().equals(worker) && s.blockSize() != null) {
        seen = seen == null ? s.blockSize() : Math.max(seen, s.blockSize());
      }
    }
    return seen;
  }

  /** {@code GET /v1/admin/cache-view/{worker}}, or null for an unknown worker. */
  public static Map<String, Object> cacheView(RouterRuntime rt, String worker) {
    WorkerId id = WorkerId.of(worker);
    IndexStats stats = rt.index().stats();
    List<Object> ranks = new ArrayList<>();
    long blocks = 0;
    for (IndexStats.SourceStats s : stats.sources()) {
      if (s.source().worker().equals(id)) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("dp_rank", s.source().dpRank());
        r.put("block_count", s.blocks());
        r.put("last_seq", s.lastSeq());
        r.put("degraded", s.degraded());
        r.put("batches", s.batches());
        r.put("block_size", s.blockSize());
        ranks.add(r);
        blocks += s.blocks();
      }
    }
    if (ranks.isEmpty() && rt.fleet().member(id) == null) {
      return null;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("worker_id", worker);
    out.put("block_count", blocks);
    out.put("ranks", ranks);
    return out;
  }

  /** Per pool and role routed to: the weight in use and, when tuned, the tuner's evidence. */
  static List<Map<String, Object>> overlapWeights(OverlapTuning tuning) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (OverlapTuning.PoolStatus p : tuning.status()) {
      WeightTuner.Status s = p.s();
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("pool", p.pool());
      m.put("role", p.role().wireName());
      m.put("mode", p.mode().wire());
      m.put("weight", s.weight());
      if (p.mode() == OverlapWeightMode.AUTO) {
        m.put("probes", List.of(s.downProbe(), s.upProbe()));
        m.put("samples", s.samples());
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("up", s.up());
        d.put("down", s.down());
        d.put("hold", s.hold());
        d.put("merge", s.merge());
        d.put("discard", s.discard());
        m.put("decisions", d);
        m.put(
            "last_difference", Double.isNaN(s.lastDifference()) ? null : round(s.lastDifference()));
      }
      out.add(m);
    }
    return out;
  }

  /** {@code GET /v1/admin/status}, credentials redacted ({@link Redaction}). */
  public static Map<String, Object> status(RouterRuntime rt) {
    RouterConfig c = rt.config();
    IndexStats stats = rt.index().stats();
    Map<String, Object> out = new LinkedHashMap<>();
    List<String> notReady = rt.notReadyReasons();
    out.put("ready", notReady.isEmpty());
    out.put("not_ready_reasons", notReady);
    out.put("model", c.model());
    out.put("page_size", c.pageSize());
    out.put("request_block_sizes", requestBlockSizes(c.pageSize(), rt.index().otherBlockSizes()));
    out.put("policy", c.policy().name().wireName());
    out.put("overlap_weight", c.policy().overlapWeight());
    out.put("overlap_weight_mode", c.policy().tunes() ? "auto" : "fixed");
    out.put("overlap_weights", overlapWeights(rt.router().tuning()));
    out.put("discovery", rt.discovery().name());
    out.put("events_transport", rt.transport().name());
    out.put("events_condition", rt.eventsCondition().fields());
    out.put("index_accurate", rt.indexAccuracy().status());
    out.put("render_parity", renderParity(rt.renderParity().condition()));
    Map<String, Object> ignored = new LinkedHashMap<>();
    ignored.put("ignored_keys", rt.ignoredKeys().paths());
    ignored.put("ignored_key_count", rt.ignoredKeys().total());
    out.put("config", ignored);
    List<Object> workers = new ArrayList<>();
    for (Fleet.Member m : rt.fleet().members()) {
      workers.add(worker(rt, m, stats));
    }
    out.put("workers", workers);
    TransportStatus transport = rt.transport().status();
    TransportStatus.Sources tracked = transport.sources();
    Map<SourceId, TransportStatus.Source> streamed =
        tracked == null ? new LinkedHashMap<>() : new LinkedHashMap<>(tracked.known());
    List<Object> sources = new ArrayList<>();
    for (IndexStats.SourceStats s : stats.sources()) {
      Map<String, Object> src = new LinkedHashMap<>();
      src.put("worker_id", s.source().worker().value());
      src.put("dp_rank", s.source().dpRank());
      src.put("block_count", s.blocks());
      src.put("last_seq", s.lastSeq());
      src.put("degraded", s.degraded());
      src.put("batches", s.batches());
      src.put("block_size", s.blockSize());
      src.put("block_size_changes", s.blockSizeChanges());
      src.put("event_lag_seconds", rt.ingest().eventLagSeconds(s.source().worker()));
      if (tracked != null) {
        src.putAll(tracked.render(streamed.remove(s.source()), s.degraded()));
      }
      sources.add(src);
    }
    // Sources the transport knows that have nothing in the index yet.
    for (Map.Entry<SourceId, TransportStatus.Source> e : streamed.entrySet()) {
      Map<String, Object> src = new LinkedHashMap<>();
      src.put("worker_id", e.getKey().worker().value());
      src.put("dp_rank", e.getKey().dpRank());
      src.put("block_count", 0L);
      src.put("last_seq", null);
      src.put("degraded", false);
      src.put("batches", 0L);
      src.put("block_size", null);
      src.put("block_size_changes", 0L);
      src.put("event_lag_seconds", rt.ingest().eventLagSeconds(e.getKey().worker()));
      src.putAll(tracked.render(e.getValue(), false));
      sources.add(src);
    }
    out.put("sources", sources);
    if (!transport.fields().isEmpty()) {
      out.put(transport.name(), transport.fields());
    }
    if (rt.sharedLoad() != null) {
      out.put("load_sharing", rt.sharedLoad().status());
    }
    Map<String, Object> sessions = new LinkedHashMap<>(rt.router().sessionAffinity().status());
    // Bindings cross replicas only over load sharing (NATS); otherwise each replica has its own.
    sessions.put("shared", rt.sharedLoad() != null && rt.config().sessionAffinity().enabled());
    out.put("session_affinity", sessions);
    Map<String, Object> idx = new LinkedHashMap<>();
    idx.put("entries", stats.entries());
    idx.put("degraded_sources", stats.degradedSources());
    Map<String, Object> dropped = new LinkedHashMap<>();
    for (DropReason r : DropReason.values()) {
      dropped.put(r.label(), stats.dropped(r));
    }
    idx.put("dropped", dropped);
    idx.put("unknown_source_messages", rt.ingest().unknownSourceMessages());
    idx.put("writer_backlog", rt.ingest().backlog());
    out.put("index", idx);
    Double ratio = rt.routingMetrics().predictedHitRatio();
    out.put("hit_ratio", ratio == null ? null : round(ratio));
    Map<String, Object> tok = new LinkedHashMap<>();
    tok.put("mode", c.tokenizer().mode().name().toLowerCase(java.util.Locale.ROOT));
    tok.put("path", c.tokenizer().path());
    if (c.tokenizer().revision() != null) {
      tok.put("revision", c.tokenizer().revision());
    }
    if (rt.tokenizerProblem() != null) {
      tok.put("not_loaded_reason", rt.tokenizerProblem());
    }
    if (rt.tokenizer() != null) {
      tok.put("prefix_reuse_off_reason", rt.tokenizer().reuseDisabledReason());
      tok.put("prefix_cache", rt.tokenizer().cacheStats());
    }
    out.put("tokenizer", tok);
    // Last, over the whole document: a component's status may quote a URL with credentials.
    return Redaction.redact(out);
  }

  /** {@code POST /v1/admin/explain}: the decision, nothing booked. */
  public static Map<String, Object> explain(RequestAnalyzer.Analyzed a, RoutePlan plan) {
    Decision d = plan.decision();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("request_blocks", d.requestBlocks());
    out.put("prompt_tokens", a.tokens());
    out.put("tokenize_failure", a.tokenizeFailure());
    out.put("picked", d.winner().value());
    out.put("picked_dp_rank", plan.dpRank());
    // A multimodal request: image affinity replaced the text hits (docs/routing.md).
    out.put("mm_images", a.media().items());
    out.put("mm_image_keys", a.media().keyCount());
    out.put("mm_affinity_hits", d.images() > 0 ? d.winnerScore().imageHits() : 0);
    out.put("session", session(plan.session()));
    List<Object> workers = new ArrayList<>();
    for (Decision.Score s : d.scores()) {
      Map<String, Object> w = new LinkedHashMap<>();
      w.put("worker_id", s.worker().value());
      w.put("role", s.role().wireName());
      w.put("cache_hits", s.hits());
      if (d.images() > 0) {
        w.put("image_hits", s.imageHits());
        w.put("image_hit_blocks", round(s.imageHitBlocks()));
      }
      w.put("active_blocks", s.activeBlocks());
      w.put("recent_blocks", round(s.recentBlocks()));
      w.put("engine_blocks", round(s.engine().blocks()));
      w.put("engine_age_ms", s.engine().known() ? s.engine().ageMs() : null);
      w.put("overlap_weight", s.weight());
      w.put("cost", round(s.cost()));
      workers.add(w);
    }
    out.put("workers", workers);
    List<String> hashes = new ArrayList<>();
    long[] h = a.hashes().base();
    for (int i = 0; i < Math.min(h.length, 8); i++) {
      hashes.add(BlockHasher.hex(h[i]));
    }
    out.put("first_block_hashes", hashes);
    return out;
  }

  /** The explain document's {@code session} object: whether (and how) the pick is session-bound. */
  private static Map<String, Object> session(SessionAffinity.Verdict v) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("bound", v instanceof SessionAffinity.Verdict.Bound);
    out.put("verdict", v.label());
    if (v instanceof SessionAffinity.Verdict.Replaced r) {
      out.put("replaced_worker", r.previous().value());
      out.put("replaced_reason", r.reason().label());
    }
    return out;
  }

  private static List<Integer> requestBlockSizes(int pageSize, int[] others) {
    List<Integer> out = new ArrayList<>();
    out.add(pageSize);
    for (int s : others) {
      out.add(s);
    }
    return out;
  }

  private static double round(double v) {
    return Math.round(v * 1000.0) / 1000.0;
  }
}
