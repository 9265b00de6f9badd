package io.infera.router.events.nats;

import io.infera.router.kv.WorkerId;
import io.infera.router.nats.NatsAuth;
import io.infera.router.nats.SharedLoadCodec;
import io.infera.router.nats.SharedLoadMessage;
import io.infera.router.nats.SharedLoadMessage.Bye;
import io.infera.router.nats.SharedLoadMessage.Entry;
import io.infera.router.nats.SharedLoadMessage.Heartbeat;
import io.infera.router.nats.SharedLoadMessage.Update;
import io.infera.router.policy.LoadTracker;
import io.infera.router.policy.PeerLoadTable;
import io.infera.router.policy.SessionBinding;
import io.infera.router.policy.SessionBindings;
import io.infera.router.policy.WorkerLoad;
import io.infera.router.policy.tuner.OverlapTuning;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.nats.client.Connection;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Router replicas sharing in-flight load on a core NATS subject so that N replicas do not all pick
 * the same worker (docs/contracts.md, "NATS event plane"; docs/routing.md, "Pitfalls"): the NATS
 * adapter of load sharing, in front of the pure {@link PeerLoadTable}.
 *
 * <p>Each replica has a random 64-bit id. Every booking and release of its {@link LoadTracker} is
 * published at once, from the booking thread, as an {@link Update} carrying the replica's new
 * <em>totals</em> on that worker (distinct active blocks, requests in flight) and, for a booking,
 * the pick's recent charge. Totals rather than deltas make every message idempotent: a lost or
 * reordered one is repaired by the next one for that worker (per-worker seqs order them) or by the
 * {@link Heartbeat} every replica sends each {@link Settings#heartbeat()} with all its totals,
 * which also brings a late joiner up to date (a replica answers a newcomer's first message with an
 * immediate heartbeat). A replica not heard from within {@link Settings#expiry()} stops counting; a
 * replica that closes says {@link Bye} and stops counting at once.
 *
 * <p>What a pick then sees: its own load plus the sum of the other replicas' in-flight totals.
 * Updates reach the others within a network hop (≈0.1–0.5 ms on loopback), so picks closer together
 * than that cannot see each other. Other replicas' picks are <em>not</em> charged to {@code
 * recent_blocks} by default ({@link Settings#remotePicks()}): measured on bursts of identical new
 * prompts ({@code SharedLoadHerdIT}), sharing recent charges makes every replica's view the same,
 * so picks made within one propagation delay agree on the same worker more often; each replica's
 * own recent charges keep their near-simultaneous picks apart, and the in-flight totals carry the
 * load that lasts. Two in-flight requests of different replicas sharing a prefix count it twice
 * (only totals cross the wire).
 *
 * <p>Threads: messages are applied on the NATS dispatcher thread; request threads read the
 * per-worker sums lock-free; heartbeats and expiry run on one scheduler thread. Messages from this
 * replica itself are ignored; malformed ones are counted and skipped. Binds {@code
 * infera.load.sharing.*}.
 */
public final class SharedLoad implements LoadTracker.Sharing, MeterBinder, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SharedLoad.class);

  /**
   * How load is shared.
   *
   * @param heartbeat how often this replica sends its full totals (&gt; 0)
   * @param expiry how long another replica counts after its last message (&gt; heartbeat; a few
   *     heartbeats, so one lost heartbeat does not drop it)
   * @param remotePicks whether other replicas' picks are charged to {@code recent_blocks} here (as
   *     charges that drain with time, {@link LoadTracker#remotePick}) — off by default, see the
   *     class comment
   */
  public record Settings(Duration heartbeat, Duration expiry, boolean remotePicks) {

    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(1);
    public static final Duration DEFAULT_EXPIRY = Duration.ofSeconds(3);

    public Settings {
      if (heartbeat == null || heartbeat.isNegative() || heartbeat.isZero()) {
        throw new IllegalArgumentException("load sharing heartbeat must be > 0");
      }
      if (expiry == null || expiry.compareTo(heartbeat) <= 0) {
        throw new IllegalArgumentException(
            "load sharing expiry must be longer than the heartbeat (" + heartbeat + ")");
      }
    }

    /** In-flight totals only (no remote picks). */
    public Settings(Duration heartbeat, Duration expiry) {
      this(heartbeat, expiry, false);
    }

    public static Settings defaults() {
      return new Settings(DEFAULT_HEARTBEAT, DEFAULT_EXPIRY);
    }

    /** The same with other replicas' picks charged to {@code recent_blocks} or not. */
    public Settings withRemotePicks(boolean on) {
      return new Settings(heartbeat, expiry, on);
    }

    /** {@code expiry} with a heartbeat of a third of it, at most 1 s. */
    public static Settings withExpiry(Duration expiry) {
      Duration third = expiry.dividedBy(3);
      return new Settings(
          third.compareTo(DEFAULT_HEARTBEAT) < 0 ? third : DEFAULT_HEARTBEAT, expiry);
    }
  }

  /**
   * Counters for metrics.
   *
   * @param replicas other replicas currently counted
   * @param published messages handed to NATS
   * @param publishFailures messages NATS refused (disconnected with a full buffer, closed)
   * @param received messages from other replicas applied
   * @param fromSelf own messages echoed back and ignored
   * @param malformed messages that did not decode (skipped)
   * @param expired replicas dropped for silence
   * @param clamped entries whose totals were above {@link PeerLoadTable}'s per-replica caps
   * @param unknownWorkers entries (and picks) on workers discovery does not know, ignored
   * @param ignoredReplicas messages of a new replica ignored because the table was full
   */
  public record Stats(
      int replicas,
      long published,
      long publishFailures,
      long received,
      long fromSelf,
      long malformed,
      long expired,
      long clamped,
      long unknownWorkers,
      long ignoredReplicas) {}

  /** Sends one encoded message to every replica; may throw (counted, never propagated). */
  interface Publisher {
    void publish(byte[] message) throws Exception;
  }

  private final long replicaId;
  private final LoadTracker tracker;
  private final Settings settings;
  private final Publisher publisher;
  private final LongSupplier nanoClock;
  private final PeerLoadTable peers;

  private final LongAdder published = new LongAdder();
  private final LongAdder publishFailures = new LongAdder();
  private final LongAdder received = new LongAdder();
  private final LongAdder fromSelf = new LongAdder();
  private final LongAdder malformed = new LongAdder();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final LongAdder unknownPicks = new LongAdder();
  private volatile long lastHeartbeat = Long.MIN_VALUE;
  // Workers discovery knows; null until the first workers() call (tests driving it directly).
  private volatile Set<WorkerId> known;
  // The overlap-weight estimates shared with the heartbeats; null: none (fixed weights, tests).
  private volatile OverlapTuning tuning;
  // The session bindings shared; null: none (session affinity off).
  private volatile SessionBindings bindings;
  private final LongAdder bindingsApplied = new LongAdder();
  private final LongAdder bindingsStale = new LongAdder();
  private final LongAdder bindingsRefused = new LongAdder();

  // The NATS side, set by LoadSharingConnection before anything can use it; null when driven
  // directly (unit tests).
  private final LoadSharingConnection nats;
  private volatile ScheduledExecutorService scheduler;

  SharedLoad(
      long replicaId,
      LoadTracker tracker,
      Settings settings,
      Publisher publisher,
      LongSupplier nanoClock) {
    this(replicaId, tracker, settings, publisher, nanoClock, null);
  }

  private SharedLoad(
      long replicaId,
      LoadTracker tracker,
      Settings settings,
      Publisher publisher,
      LongSupplier nanoClock,
      LoadSharingConnection nats) {
    this.replicaId = replicaId;
    this.tracker = tracker;
    this.settings = settings;
    this.publisher = publisher;
    this.nanoClock = nanoClock;
    this.nats = nats;
    this.peers = new PeerLoadTable(settings.expiry(), SharedLoadMessage.MAX_ENTRIES, nanoClock);
  }

  /**
   * Shares {@code tracker}'s load on {@code subject} over an existing connection (not closed by
   * {@link #close}). Returns once subscribed and announced.
   *
   * @param subject the load subject, {@code EventSubjects.loadSubject(prefix)}
   */
  public static SharedLoad start(
      Connection nc, String subject, LoadTracker tracker, Duration expiry) {
    return start(nc, subject, tracker, Settings.withExpiry(expiry));
  }

  /** As {@link #start(Connection, String, LoadTracker, Duration)} with explicit settings. */
  public static SharedLoad start(
      Connection nc, String subject, LoadTracker tracker, Settings settings) {
    LoadSharingConnection c = new LoadSharingConnection(subject, false);
    SharedLoad s =
        new SharedLoad(newReplicaId(), tracker, settings, c::publish, System::nanoTime, c);
    c.attach(nc, s::receive);
    s.startTicking(subject);
    return s;
  }

  /**
   * As {@link #start(Connection, String, LoadTracker, Settings)} on a connection of its own to
   * {@code url} ({@link LoadSharingConnection#options}), closed by {@link #close}. Returns at once:
   * the connection is made in the background and retried forever, and until it is up this replica
   * routes on its own load only (nothing blocks the router's start on the broker).
   */
  public static SharedLoad connect(
      String url, String subject, LoadTracker tracker, Settings settings)
      throws InterruptedException {
    return connect(url, NatsAuth.NONE, subject, tracker, settings);
  }

  /** As {@link #connect(String, String, LoadTracker, Settings)} with credentials and TLS. */
  public static SharedLoad connect(
      String url, NatsAuth auth, String subject, LoadTracker tracker, Settings settings)
      throws InterruptedException {
    LoadSharingConnection c = new LoadSharingConnection(subject, true, auth);
    SharedLoad s =
        new SharedLoad(newReplicaId(), tracker, settings, c::publish, System::nanoTime, c);
    s.startTicking(subject);
    c.connectInBackground(url, s::receive, s.closed::get, s::replica);
    return s;
  }

  /** Heartbeats and expiry sweeps on a thread of their own; shares the tracker. */
  private void startTicking(String subject) {
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "infera-load-sharing");
              t.setDaemon(true);
              return t;
            });
    // Sweep often enough that a silent replica goes within a quarter expiry of its deadline.
    long period =
        Math.max(1, Math.min(settings.heartbeat().toMillis(), settings.expiry().toMillis() / 4));
    scheduler.scheduleAtFixedRate(this::safeTick, 0, period, TimeUnit.MILLISECONDS);
    tracker.share(this);
    log.info(
        "load sharing started replica={} subject={} heartbeat_ms={} expiry_ms={}",
        replica(),
        subject,
        settings.heartbeat().toMillis(),
        settings.expiry().toMillis());
  }

  /** True once subscribed on a connection that is up now. */
  public boolean connected() {
    return nats != null && nats.connected();
  }

  /** This replica's id, in hex. */
  public String replica() {
    return Long.toHexString(replicaId);
  }

  public Settings settings() {
    return settings;
  }

  public Stats stats() {
    return new Stats(
        peers.replicas(),
        published.sum(),
        publishFailures.sum(),
        received.sum(),
        fromSelf.sum(),
        malformed.sum(),
        peers.expired(),
        peers.clamped(),
        peers.unknownWorkers() + unknownPicks.sum(),
        peers.ignoredReplicas());
  }

  /**
   * The workers discovery knows now (the router calls it on every change): other replicas' reports
   * and picks on any other worker are ignored, so forged ids cannot grow the tables.
   */
  public void workers(Set<WorkerId> current) {
    Set<WorkerId> copy = Set.copyOf(current);
    known = copy;
    peers.workers(copy);
  }

  /**
   * Shares {@code tuning}'s overlap-weight estimates with every heartbeat and merges the peers'
   * ({@link OverlapTuning#mergePeer}); a fixed-weight router shares nothing.
   */
  public void shareWeights(OverlapTuning tuning) {
    this.tuning = tuning;
  }

  /**
   * Shares session bindings (docs/routing.md, "Session affinity"): a binding {@code b} makes or
   * replaces is published at once, bindings still in use are re-published in batches with the
   * heartbeats, and the peers' bindings are merged into {@code b} — those naming a worker discovery
   * does not know are refused and counted.
   */
  public void shareBindings(SessionBindings b) {
    this.bindings = b;
    b.share(this::announceBinding);
  }

  /** This replica's id (the origin of the session bindings it makes). */
  public long replicaId() {
    return replicaId;
  }

  /** The {@code load_sharing} object of the admin status, in its order. */
  public Map<String, Object> status() {
    Stats ls = stats();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("connected", connected());
    out.put("peer_replicas", ls.replicas());
    out.put("published", ls.published());
    out.put("publish_failures", ls.publishFailures());
    out.put("received", ls.received());
    out.put("malformed", ls.malformed());
    out.put("expired", ls.expired());
    out.put("clamped", ls.clamped());
    out.put("unknown_workers", ls.unknownWorkers());
    out.put("ignored_replicas", ls.ignoredReplicas());
    if (bindings != null) {
      out.put("bindings_applied", bindingsApplied.sum());
      out.put("bindings_stale", bindingsStale.sum());
      out.put("bindings_refused", bindingsRefused.sum());
    }
    return out;
  }

  /** Binds {@code infera.load.sharing.*}: peers seen and message counters. */
  @Override
  public void bindTo(MeterRegistry registry) {
    Gauge.builder("infera.load.sharing.replicas", this, s -> s.stats().replicas())
        .description("other router replicas whose in-flight load this replica counts")
        .register(registry);
    Map<String, ToDoubleFunction<SharedLoad>> c =
        Map.of(
            "infera.load.sharing.published", s -> s.stats().published(),
            "infera.load.sharing.publish.failures", s -> s.stats().publishFailures(),
            "infera.load.sharing.received", s -> s.stats().received(),
            "infera.load.sharing.malformed", s -> s.stats().malformed(),
            "infera.load.sharing.expired", s -> s.stats().expired(),
            "infera.load.sharing.clamped", s -> s.stats().clamped(),
            "infera.load.sharing.unknown.workers", s -> s.stats().unknownWorkers(),
            "infera.load.sharing.ignored.replicas", s -> s.stats().ignoredReplicas());
    c.forEach((name, f) -> FunctionCounter.builder(name, this, f).register(registry));
    // Session bindings from other replicas: merged, older than ours, or naming unknown workers.
    Map<String, ToDoubleFunction<SharedLoad>> b =
        Map.of(
            "infera.load.sharing.bindings.applied", s -> s.bindingsApplied.sum(),
            "infera.load.sharing.bindings.stale", s -> s.bindingsStale.sum(),
            "infera.load.sharing.bindings.refused", s -> s.bindingsRefused.sum());
    b.forEach((name, f) -> FunctionCounter.builder(name, this, f).register(registry));
  }

  @Override
  public WorkerLoad remote(WorkerId worker) {
    return peers.remote(worker);
  }

  @Override
  public void changed(LoadTracker.Change change) {
    send(new Update(replicaId, List.of(entry(change))));
  }

  /** Applies one message from the subject (the dispatcher thread). Never throws. */
  void receive(byte[] data) {
    SharedLoadMessage m;
    try {
      m = SharedLoadCodec.decode(data);
    } catch (SharedLoadCodec.MalformedException e) {
      malformed.increment();
      log.debug("load message dropped reason={} error={}", e.kind(), e.getMessage());
      return;
    }
    if (m.replica() == replicaId) {
      fromSelf.increment();
      return;
    }
    received.increment();
    if (closed.get()) {
      return;
    }
    PeerLoadTable.Outcome o = PeerLoadTable.Outcome.IGNORED;
    if (m instanceof Bye) {
      if (peers.leave(m.replica())) {
        log.info("load peer left replica={}", Long.toHexString(m.replica()));
      }
    } else if (m instanceof Update u) {
      o = peers.update(u.replica(), changes(u.entries()));
      if (o != PeerLoadTable.Outcome.IGNORED && settings.remotePicks()) {
        Set<WorkerId> k = known;
        for (Entry e : u.entries()) {
          if (!e.pick()) {
            continue;
          }
          if (k != null && !k.contains(e.worker())) {
            unknownPicks.increment();
          } else {
            // A pick charges its missed blocks: never more than one replica's active cap.
            tracker.remotePick(
                e.worker(), Math.min(e.charge(), (double) PeerLoadTable.MAX_ACTIVE_BLOCKS));
          }
        }
      }
    } else if (m instanceof Heartbeat h) {
      o = peers.heartbeat(h.replica(), h.seq(), changes(h.entries()));
    } else if (m instanceof SharedLoadMessage.Weights w) {
      mergeWeights(w);
    } else if (m instanceof SharedLoadMessage.Bindings b) {
      mergeBindings(b);
    }
    if (o == PeerLoadTable.Outcome.JOINED) {
      log.info("load peer joined replica={}", Long.toHexString(m.replica()));
      // Bring the newcomer up to date now rather than at our next heartbeat.
      if (scheduler != null) {
        scheduler.execute(this::safeHeartbeat);
      } else {
        heartbeat();
      }
    }
  }

  /** Sends a heartbeat when due and drops silent replicas (the scheduler thread). */
  void tick() {
    long now = nanoClock.getAsLong();
    if (lastHeartbeat == Long.MIN_VALUE || now - lastHeartbeat >= settings.heartbeat().toNanos()) {
      heartbeat();
      sendWeights();
      sendBindingRefreshes();
    }
    for (PeerLoadTable.Expired e : peers.expire()) {
      log.info(
          "load peer expired replica={} silent_ms={}",
          Long.toHexString(e.replica()),
          TimeUnit.NANOSECONDS.toMillis(e.silentNanos()));
    }
  }

  /** Sends this replica's full totals. */
  void heartbeat() {
    lastHeartbeat = nanoClock.getAsLong();
    LoadTracker.OwnLoad own = tracker.ownLoad();
    List<LoadTracker.Change> ws = own.workers();
    if (ws.size() > SharedLoadMessage.MAX_ENTRIES) {
      log.warn(
          "load heartbeat truncated workers={} max={}", ws.size(), SharedLoadMessage.MAX_ENTRIES);
      ws = ws.subList(0, SharedLoadMessage.MAX_ENTRIES);
    }
    send(new Heartbeat(replicaId, own.seq(), ws.stream().map(SharedLoad::entry).toList()));
  }

  /** This replica's weight estimates, when it tunes (sent after each heartbeat). */
  void sendWeights() {
    OverlapTuning t = tuning;
    if (t == null || !t.tunes()) {
      return;
    }
    List<SharedLoadMessage.WeightEntry> out = new java.util.ArrayList<>();
    for (OverlapTuning.Estimate e : t.estimates()) {
      if (out.size() == SharedLoadMessage.MAX_WEIGHT_ENTRIES) {
        break;
      }
      if (e.pool().isBlank()
          || e.pool().getBytes(java.nio.charset.StandardCharsets.UTF_8).length
              > SharedLoadMessage.MAX_POOL_BYTES) {
        continue;
      }
      out.add(
          new SharedLoadMessage.WeightEntry(e.pool(), e.role().ordinal(), e.weight(), e.samples()));
    }
    if (!out.isEmpty()) {
      send(new SharedLoadMessage.Weights(replicaId, out));
    }
  }

  /** A binding this replica made or replaced (the pick thread; publishing never blocks). */
  private void announceBinding(long session, SessionBinding b) {
    if (!closed.get()) {
      send(new SharedLoadMessage.Bindings(replicaId, List.of(entry(session, b))));
    }
  }

  /** The bindings in use whose refresh is due, in messages of at most the entry cap. */
  void sendBindingRefreshes() {
    SessionBindings b = bindings;
    if (b == null) {
      return;
    }
    // A bounded amount per tick: the rest waits (a refresh is due for a third of the TTL).
    for (int round = 0; round < 8; round++) {
      List<SessionBindings.Entry> due = b.drainRefreshes(SharedLoadMessage.MAX_BINDING_ENTRIES);
      if (due.isEmpty()) {
        return;
      }
      send(
          new SharedLoadMessage.Bindings(
              replicaId, due.stream().map(e -> entry(e.session(), e.binding())).toList()));
    }
  }

  private void mergeBindings(SharedLoadMessage.Bindings m) {
    SessionBindings b = bindings;
    if (b == null) {
      return;
    }
    Set<WorkerId> k = known;
    for (SharedLoadMessage.BindingEntry e : m.entries()) {
      if (k != null
          && ((e.first() != null && !k.contains(e.first()))
              || (e.decode() != null && !k.contains(e.decode())))) {
        bindingsRefused.increment();
        continue;
      }
      SessionBinding binding =
          new SessionBinding(
              e.first(), e.firstRank(), e.decode(), e.decodeRank(), e.version(), e.origin());
      switch (b.merge(e.session(), binding)) {
        case APPLIED, REFRESHED -> bindingsApplied.increment();
        case STALE -> bindingsStale.increment();
      }
    }
  }

  private static SharedLoadMessage.BindingEntry entry(long session, SessionBinding b) {
    return new SharedLoadMessage.BindingEntry(
        session, b.first(), b.firstRank(), b.decode(), b.decodeRank(), b.version(), b.origin());
  }

  private void mergeWeights(SharedLoadMessage.Weights w) {
    OverlapTuning t = tuning;
    if (t == null) {
      return;
    }
    List<OverlapTuning.Estimate> es =
        w.estimates().stream()
            .map(
                e ->
                    new OverlapTuning.Estimate(
                        e.pool(),
                        io.infera.router.config.Role.values()[e.role()],
                        e.weight(),
                        e.samples()))
            .toList();
    t.mergePeer(
        Long.toHexString(w.replica()), es, TimeUnit.NANOSECONDS.toMillis(nanoClock.getAsLong()));
  }

  /** Stops sharing: the tracker is local again, peers are told to forget this replica. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    tracker.unshare(this);
    SessionBindings b = bindings;
    if (b != null) {
      b.share(null);
    }
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
    send(new Bye(replicaId));
    peers.close();
    if (nats != null) {
      nats.close();
    }
  }

  private void send(SharedLoadMessage m) {
    try {
      publisher.publish(SharedLoadCodec.encode(m));
      published.increment();
    } catch (Exception e) {
      publishFailures.increment();
      log.debug("load message not published error={}", e.toString());
    }
  }

  private void safeTick() {
    try {
      tick();
    } catch (RuntimeException e) {
      log.warn("load sharing tick failed error={}", e.toString());
    }
  }

  private void safeHeartbeat() {
    try {
      heartbeat();
    } catch (RuntimeException e) {
      log.warn("load sharing heartbeat failed error={}", e.toString());
    }
  }

  private static Entry entry(LoadTracker.Change c) {
    return new Entry(c.worker(), c.seq(), c.activeBlocks(), c.inFlight(), c.pick(), c.charge());
  }

  private static List<LoadTracker.Change> changes(List<Entry> entries) {
    return entries.stream()
        .map(
            e ->
                new LoadTracker.Change(
                    e.worker(), e.seq(), e.activeBlocks(), e.inFlight(), e.pick(), e.charge()))
        .toList();
  }

  private static long newReplicaId() {
    return new SecureRandom().nextLong();
  }
}
