package io.infera.router.runtime;

import io.infera.router.accuracy.IndexAccuracy;
import io.infera.router.config.IgnoredKeys;
import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.Discovery;
import io.infera.router.discovery.HealthChecker;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.engineload.EngineLoadTable;
import io.infera.router.engineload.EngineScraper;
import io.infera.router.events.EventIngest;
import io.infera.router.events.EventTransport;
import io.infera.router.events.nats.SharedLoad;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.WorkerId;
import io.infera.router.nats.EventSubjects;
import io.infera.router.parity.RenderParity;
import io.infera.router.policy.ApproxPrefixIndex;
import io.infera.router.policy.DecodeDemand;
import io.infera.router.policy.ImageAffinity;
import io.infera.router.policy.LoadTracker;
import io.infera.router.routing.AnalysisBudget;
import io.infera.router.routing.DecodeDemandMeters;
import io.infera.router.routing.Fleet;
import io.infera.router.routing.RequestAnalyzer;
import io.infera.router.routing.RequestRouter;
import io.infera.router.routing.RoutingMetrics;
import io.infera.router.routing.SessionAffinity;
import io.infera.router.routing.TunerMeters;
import io.infera.router.tokenize.PromptTokenizer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: the router's core assembled from a config — tokenizer, index and its
 * writer, event transport, discovery (+ health checks), fleet, load tracker, request router — and
 * the meter registry every component binds its meters to. No HTTP here; {@code
 * io.infera.router.http.RouterServer} serves it.
 */
public final class RouterRuntime implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RouterRuntime.class);

  /** Builds the parts that talk to the outside (tests substitute their own). */
  public interface Parts {
    Discovery discovery(RouterConfig config);

    EventTransport transport(RouterConfig config);

    /** Null in engine tokenizer mode. */
    PromptTokenizer tokenizer(RouterConfig config) throws Exception;

    /** Whether closing the runtime closes the tokenizer (false when it is shared). */
    default boolean ownsTokenizer() {
      return true;
    }
  }

  private final RouterConfig config;
  private final IgnoredKeys ignoredKeys;
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final RoutingMetrics routingMetrics = new RoutingMetrics();
  private final IndexAccuracy indexAccuracy;
  private final WorkerMeters workerMeters;
  private final TokenizerSlot tokenizer;
  private final PrefixIndex index;
  private final EventIngest ingest;
  private final LoadTracker load;
  private final ApproxPrefixIndex approx;
  private final ImageAffinity imageAffinity;
  private final Fleet fleet;
  private final EventTransport transport;
  private final Discovery discovery;
  private final HealthChecker health;
  private final RequestRouter router;
  private final RequestAnalyzer analyzer;
  private final AnalysisBudget analysisBudget;
  private final long startedAt = System.currentTimeMillis();
  private final SharedLoad sharedLoad;
  private final EngineLoadTable engineLoad;
  private final EngineScraper engineScraper;
  private final DecodeDemand decodeDemand = new DecodeDemand();
  private final DecodeDemandMeters decodeDemandMeters;
  private final RenderParity renderParity;
  private volatile boolean shuttingDown;
  private volatile boolean eventsWarm;
  // Latched: the router became ready without its index (the event source was unreachable); it
  // stays ready while it catches up instead of flapping when the source returns.
  private volatile boolean readyWithoutIndex;

  private RouterRuntime(RouterConfig config, Parts parts, IgnoredKeys ignoredKeys)
      throws Exception {
    this.config = config;
    this.load = new LoadTracker(config.policy().load(), System::nanoTime);
    this.ignoredKeys = ignoredKeys;
    // Once per key, at start: a newer operator wrote keys this router predates (docs/contracts.md,
    // "Version skew"); the router runs without them.
    for (String key : ignoredKeys.paths()) {
      log.warn("config key ignored key={} reason=unknown to this router version", key);
    }
    if (ignoredKeys.total() > ignoredKeys.paths().size()) {
      log.warn(
          "config keys ignored count={} listed={} (the rest not logged)",
          ignoredKeys.total(),
          ignoredKeys.paths().size());
    }
    Gauge.builder("infera_config_ignored_keys", ignoredKeys, IgnoredKeys::total)
        .description("RouterConfig keys this router does not know and ignored at start")
        .register(registry);
    this.tokenizer = new TokenizerSlot(config, parts);
    this.index = new PrefixIndex(config.pageSize(), config.index().limits(), System::nanoTime);
    IndexSizing.check(config.index().limits(), Runtime.getRuntime().maxMemory());
    new IndexMeters(index).bindTo(registry);
    routingMetrics.bindTo(registry);
    this.indexAccuracy = new IndexAccuracy(config.index().accuracy(), System::nanoTime);
    indexAccuracy.bindTo(registry);
    this.workerMeters = new WorkerMeters(registry, index, load);
    this.ingest = new EventIngest(index, 100_000).start();
    this.ingest.bindTo(registry);
    this.approx = new ApproxPrefixIndex(120_000, 200_000, System::currentTimeMillis);
    RouterConfig.Limits lim = config.limits();
    this.fleet =
        new Fleet(
            lim.breakerFailures(),
            lim.breakerCooldownMs(),
            lim.breakerMaxCooldownMs(),
            System::currentTimeMillis);
    this.imageAffinity = new ImageAffinity(config.multimodal().affinityEntries());
    this.router =
        new RequestRouter(
            fleet,
            index,
            load,
            config.policy(),
            approx,
            routingMetrics,
            imageAffinity,
            config.pageSize());
    // Engine-reported load: scraped off the request path, read by picks (docs/routing.md).
    this.engineLoad =
        new EngineLoadTable(config.engineLoad(), () -> System.nanoTime() / 1_000_000L);
    this.engineLoad.bindTo(registry);
    if (config.engineLoad().enabled()) {
      router.attachEngineLoad(engineLoad);
      this.engineScraper =
          new EngineScraper(
                  config.engineLoad(),
                  engineLoad,
                  () -> fleet.members().stream().map(Fleet.Member::info).toList(),
                  id -> load.load(id).inFlight())
              .start();
    } else {
      this.engineScraper = null;
    }
    new TunerMeters(router.tuning()).bindTo(registry);
    // Decode input demand (shadow or on): booked in the pick, released with the decode half.
    this.decodeDemandMeters = new DecodeDemandMeters(decodeDemand, registry);
    router.attachDecodeDemand(config.decodeDemand(), decodeDemand, decodeDemandMeters);
    // With NATS, replicas share their in-flight load so N routers do not herd onto one worker.
    this.sharedLoad =
        config.events().transport() == RouterConfig.Transport.NATS
                && config.events().nats().shareLoad()
            ? SharedLoad.connect(
                config.events().nats().url(),
                config.events().nats().auth(),
                EventSubjects.loadSubject(config.events().nats().subjectPrefix()),
                load,
                SharedLoad.Settings.defaults())
            : null;
    if (sharedLoad != null) {
      sharedLoad.shareWeights(router.tuning());
      sharedLoad.bindTo(registry);
      router.rotateTies(new SecureRandom().nextInt(Integer.MAX_VALUE));
    }
    // Session affinity: bindings per replica, shared with the others over load sharing (NATS).
    SessionAffinity affinity =
        new SessionAffinity(
            config.sessionAffinity(),
            sharedLoad != null ? sharedLoad.replicaId() : new SecureRandom().nextLong(),
            () -> System.nanoTime() / 1_000_000L);
    affinity.bindTo(registry);
    router.attachSessionAffinity(affinity);
    if (sharedLoad != null && config.sessionAffinity().enabled()) {
      sharedLoad.shareBindings(affinity.bindings());
    }
    this.analyzer =
        new RequestAnalyzer(config, tokenizer::get, routingMetrics, index::otherBlockSizes);
    this.renderParity = new RenderParity(parityDisabledWhy(config));
    renderParity.bindTo(registry);
    this.analysisBudget = new AnalysisBudget(config.limits().analysis());
    analysisBudget.bindTo(registry);
    this.transport = parts.transport(config);
    this.transport.bindTo(registry);
    Gauge.builder("infera_events_outage", this, rt -> rt.transport.outage() == null ? 0 : 1)
        .description("1 while the event transport cannot read its source (NATS unreachable)")
        .register(registry);
    Gauge.builder(
            "infera_events_index_unavailable",
            this,
            rt -> rt.eventsCondition().status() == EventsCondition.Status.ROUTING_BY_LOAD ? 1 : 0)
        .description("1 while the router is ready without its KV index and routes by load")
        .register(registry);
    this.transport.start(ingest);
    this.discovery = parts.discovery(config);
    this.discovery.start(this::onWorkers);
    if (config.discovery().backend() == RouterConfig.Backend.STATIC) {
      this.health =
          new HealthChecker(
                  () -> fleet.members().stream().map(Fleet.Member::info).toList(),
                  (w, ok) -> fleet.setHealthy(w.id(), ok),
                  config.discovery().healthIntervalMs(),
                  2)
              .start();
    } else {
      this.health = null;
    }
  }

  /** Starts the core: loads the tokenizer, starts the writer, transport and discovery. */
  public static RouterRuntime start(RouterConfig config, Parts parts) throws Exception {
    return new RouterRuntime(config, parts, IgnoredKeys.NONE);
  }

  /** {@link #start(RouterConfig, Parts)} for a config whose loader ignored {@code ignoredKeys}. */
  public static RouterRuntime start(RouterConfig config, Parts parts, IgnoredKeys ignoredKeys)
      throws Exception {
    return new RouterRuntime(config, parts, ignoredKeys);
  }

  private synchronized void onWorkers(List<WorkerInfo> snapshot) {
    Fleet.Change change = fleet.apply(snapshot);
    Set<WorkerId> current = snapshot.stream().map(WorkerInfo::id).collect(Collectors.toSet());
    ingest.workers(
        snapshot.stream().collect(Collectors.toMap(WorkerInfo::id, WorkerInfo::dpSize, Math::max)),
        new HashSet<>(change.removed()));
    if (sharedLoad != null) {
      sharedLoad.workers(current);
    }
    transport.workersChanged(change.current());
    renderParity.workers(current);
    for (WorkerId gone : change.removed()) {
      load.forget(gone);
      approx.forget(gone);
      imageAffinity.forget(gone);
      engineLoad.forget(gone);
      decodeDemand.forget(gone);
      decodeDemandMeters.forget(gone);
      workerMeters.unbind(gone);
    }
    for (WorkerInfo w : change.added()) {
      Fleet.Member m = fleet.member(w.id());
      workerMeters.bind(w.id(), m.breaker(), () -> ingest.applied(w.id()));
    }
    if (!change.added().isEmpty() || !change.removed().isEmpty()) {
      log.info(
          "fleet added={} removed={} workers={}",
          change.added().stream().map(WorkerInfo::id).toList(),
          change.removed(),
          change.current().size());
    }
  }

  /** Why render parity is not probed, or null when it is (docs/routing.md, "Render parity"). */
  static String parityDisabledWhy(RouterConfig config) {
    if (config.tokenizer().mode() == RouterConfig.TokenizerMode.ENGINE) {
      return "tokenizer.mode is engine: requests are tokenized by the engines already";
    }
    if (!config.tokenizer().parity().enabled()) {
      return "tokenizer.parity.enabled is false";
    }
    return null;
  }

  /** Why the router is not ready (empty when it is). */
  public List<String> notReadyReasons() {
    List<String> reasons = new ArrayList<>();
    if (shuttingDown) {
      reasons.add("shutting down");
    }
    String tok = tokenizer.problem();
    if (tok != null) {
      reasons.add("tokenizer: " + tok);
    }
    if (!discovery.synced() || !fleet.synced()) {
      reasons.add("discovery (" + discovery.name() + ") has not synced");
    }
    router.notRoutableReason().ifPresent(reasons::add);
    String writer = ingest.writerProblem();
    if (writer != null) {
      reasons.add(writer);
    }
    String thread = transport.threadProblem();
    if (thread != null) {
      reasons.add("KV events (" + transport.name() + ") " + thread);
    }
    // Latched: once the event plane was warm, a new worker joining does not flap readiness.
    if (!eventsWarm) {
      eventsWarm = transport.warm();
    }
    if (!eventsWarm && !readyWithoutIndex && outageLongEnough(transport.outage())) {
      readyWithoutIndex = true;
      log.warn(
          "router ready without its KV index, routing by load until the event plane is read"
              + " transport={} reason={}",
          transport.name(),
          transport.outage() == null ? "-" : transport.outage().message());
    }
    if (!eventsWarm && !readyWithoutIndex) {
      String why = transport.status().notReadyReason();
      reasons.add(
          "KV events ("
              + transport.name()
              + ") "
              + (why == null ? "not connected yet" : "not ready: " + why));
    }
    return reasons;
  }

  private boolean outageLongEnough(EventTransport.Outage o) {
    if (o == null || config.events().transport() != RouterConfig.Transport.NATS) {
      return false;
    }
    long graceNanos = config.events().nats().outageReadyAfterMs() * 1_000_000L;
    return System.nanoTime() - o.sinceNanos() >= graceNanos;
  }

  /**
   * The event plane's condition for {@code GET /v1/admin/status} and {@code
   * infera_events_outage}/{@code infera_events_index_unavailable}: whether the router routes on a
   * live index, on one that stopped updating, or without one. Any thread.
   */
  public EventsCondition eventsCondition() {
    EventTransport.Outage o = transport.outage();
    boolean warm = eventsWarm || transport.warm();
    Long since =
        o == null ? null : Math.max(0, (System.nanoTime() - o.sinceNanos()) / 1_000_000_000L);
    if (ingest.writerProblem() != null) {
      return new EventsCondition(
          EventsCondition.Status.FAILED, "IndexWriterDead", ingest.writerProblem(), null);
    }
    if (!warm && readyWithoutIndex) {
      return o != null
          ? new EventsCondition(
              EventsCondition.Status.ROUTING_BY_LOAD,
              o.reason(),
              o.message() + "; routing by load until the index is loaded",
              since)
          : new EventsCondition(
              EventsCondition.Status.ROUTING_BY_LOAD,
              "CatchingUp",
              "the event source is back; seeding and reading the stream, routing by load meanwhile",
              null);
    }
    if (o != null) {
      return warm
          ? new EventsCondition(
              EventsCondition.Status.STALE,
              o.reason(),
              o.message() + "; routing on the index as of the outage",
              since)
          : new EventsCondition(EventsCondition.Status.LOADING, o.reason(), o.message(), since);
    }
    String thread = transport.threadProblem();
    if (thread != null) {
      return new EventsCondition(EventsCondition.Status.FAILED, "TransportCrashed", thread, null);
    }
    return warm
        ? new EventsCondition(EventsCondition.Status.LIVE, "Live", null, null)
        : new EventsCondition(EventsCondition.Status.LOADING, "Loading", null, null);
  }

  public void beginShutdown() {
    shuttingDown = true;
  }

  public boolean shuttingDown() {
    return shuttingDown;
  }

  public RouterConfig config() {
    return config;
  }

  /** The RouterConfig keys the loader ignored (none when it was strict). */
  public IgnoredKeys ignoredKeys() {
    return ignoredKeys;
  }

  /** The registry every component's meters are bound to. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** Prometheus text exposition of every meter. */
  public String scrape() {
    return registry.scrape();
  }

  /** Predicted against engine-reported cache hits: the {@code IndexAccurate} condition. */
  public IndexAccuracy indexAccuracy() {
    return indexAccuracy;
  }

  /** Every worker's render-parity verdict (docs/routing.md, "Render parity"). */
  public RenderParity renderParity() {
    return renderParity;
  }

  /** The request path's decision meters (hit ratio, tokenize failures). */
  public RoutingMetrics routingMetrics() {
    return routingMetrics;
  }

  /** The local tokenizer; null in engine mode and while {@link #tokenizerProblem()} is set. */
  public PromptTokenizer tokenizer() {
    return tokenizer.get();
  }

  /** Why the local tokenizer is not loaded yet (the file looked for), or null. */
  public String tokenizerProblem() {
    return tokenizer.problem();
  }

  public PrefixIndex index() {
    return index;
  }

  public EventIngest ingest() {
    return ingest;
  }

  public LoadTracker load() {
    return load;
  }

  public Fleet fleet() {
    return fleet;
  }

  public RequestRouter router() {
    return router;
  }

  /** Decode input demand per decode target (empty unless shadow or on books it). */
  public DecodeDemand decodeDemand() {
    return decodeDemand;
  }

  public RequestAnalyzer analyzer() {
    return analyzer;
  }

  /** The global analysis budget every analysed request goes through (429 when full). */
  public AnalysisBudget analysisBudget() {
    return analysisBudget;
  }

  public EventTransport transport() {
    return transport;
  }

  public Discovery discovery() {
    return discovery;
  }

  public long startedAtMillis() {
    return startedAt;
  }

  /** Engine-reported load per worker (its config says whether picks use it). */
  public EngineLoadTable engineLoad() {
    return engineLoad;
  }

  /** The cross-replica load sharing, or null when the event transport is not nats. */
  public SharedLoad sharedLoad() {
    return sharedLoad;
  }

  @Override
  public void close() {
    shuttingDown = true;
    if (sharedLoad != null) {
      sharedLoad.close();
    }
    if (health != null) {
      health.close();
    }
    if (engineScraper != null) {
      engineScraper.close();
    }
    discovery.close();
    transport.close();
    ingest.close();
    analysisBudget.close();
    tokenizer.close();
  }
}
