package io.infera.router.policy;

import io.infera.router.kv.WorkerId;
import io.infera.router.nats.SharedLoadCodec;
import io.infera.router.nats.SharedLoadMessage;
import io.infera.router.nats.SharedLoadMessage.Bye;
import io.infera.router.nats.SharedLoadMessage.Entry;
import io.infera.router.nats.SharedLoadMessage.Heartbeat;
import io.infera.router.nats.SharedLoadMessage.Update;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Dispatcher;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Router replicas sharing in-flight load on a core NATS subject so that N replicas do not all pick
 * the same worker (DESIGN.md §5, §9 pitfall 3).
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
 * <p>Threads: updates are applied on the NATS dispatcher thread under one lock; request threads
 * read the per-worker sums lock-free; heartbeats and expiry run on one scheduler thread. Messages
 * from this replica itself are ignored; malformed ones are counted and skipped.
 */
public final class SharedLoad implements LoadTracker.Sharing, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SharedLoad.class);

  /** Replicas tracked at most (more are ignored until some expire). */
  static final int MAX_REPLICAS = 1024;

  /**
   * How load is shared.
   *
   * @param heartbeat how often this replica sends its full totals (&gt; 0)
   * @param expiry how long another replica counts after its last message (&gt; heartbeat; a few
   *     heartbeats, so one lost heartbeat does not drop it)
   * @param remotePicks whether other replicas' picks are charged to {@code recent_blocks} here (and
   *     decay every charge one step, {@link LoadTracker#remotePick}) — off by default, see the
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
   */
  public record Stats(
      int replicas,
      long published,
      long publishFailures,
      long received,
      long fromSelf,
      long malformed,
      long expired) {}

  /** Sends one encoded message to every replica; may throw (counted, never propagated). */
  interface Publisher {
    void publish(byte[] message) throws Exception;
  }

  private final long replicaId;
  private final LoadTracker tracker;
  private final Settings settings;
  private final Publisher publisher;
  private final LongSupplier nanoClock;

  // Guarded by lock; written on the dispatcher and scheduler threads.
  private final Object lock = new Object();
  private final Map<Long, Peer> peers = new HashMap<>();
  // Per worker, the sum of all peers' totals; written under lock, read lock-free by picks.
  private final Map<WorkerId, WorkerLoad> sums = new ConcurrentHashMap<>();

  private final LongAdder published = new LongAdder();
  private final LongAdder publishFailures = new LongAdder();
  private final LongAdder received = new LongAdder();
  private final LongAdder fromSelf = new LongAdder();
  private final LongAdder malformed = new LongAdder();
  private final LongAdder expired = new LongAdder();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile long lastHeartbeat = Long.MIN_VALUE;

  // The NATS side, set once by start() before anything can use it; null when driven directly
  // (unit tests).
  private volatile Connection connection;
  private volatile boolean ownsConnection;
  private volatile Dispatcher dispatcher;
  private volatile ScheduledExecutorService scheduler;

  /** One other replica's totals per worker, and when it was last heard. */
  private static final class Peer {
    final Map<WorkerId, Slot> workers = new HashMap<>();
    long heardAt;
  }

  private record Slot(long seq, long activeBlocks, int inFlight) {}

  SharedLoad(
      long replicaId,
      LoadTracker tracker,
      Settings settings,
      Publisher publisher,
      LongSupplier nanoClock) {
    this.replicaId = replicaId;
    this.tracker = tracker;
    this.settings = settings;
    this.publisher = publisher;
    this.nanoClock = nanoClock;
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
    return start(nc, false, subject, tracker, settings);
  }

  private static SharedLoad start(
      Connection nc, boolean owned, String subject, LoadTracker tracker, Settings settings) {
    SharedLoad s =
        new SharedLoad(
            newReplicaId(),
            tracker,
            settings,
            bytes -> nc.publish(subject, bytes),
            System::nanoTime);
    s.connection = nc;
    s.ownsConnection = owned;
    s.dispatcher = nc.createDispatcher(msg -> s.receive(msg.getData()));
    s.dispatcher.subscribe(subject);
    s.startTicking(tracker, subject);
    return s;
  }

  /** Heartbeats and expiry sweeps on a thread of their own; shares the tracker. */
  private void startTicking(LoadTracker tracker, String subject) {
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

  /**
   * As {@link #start(Connection, String, LoadTracker, Settings)} on a connection of its own to
   * {@code url} ({@link #natsOptions}), closed by {@link #close}. Returns at once: the connection
   * is made in the background and retried forever, and until it is up this replica routes on its
   * own load only (nothing blocks the router's start on the broker).
   */
  public static SharedLoad connect(
      String url, String subject, LoadTracker tracker, Settings settings)
      throws InterruptedException {
    AtomicReference<SharedLoad> self = new AtomicReference<>();
    SharedLoad s =
        new SharedLoad(
            newReplicaId(),
            tracker,
            settings,
            bytes -> {
              Connection c = self.get().connection;
              if (c == null) {
                throw new IllegalStateException("load sharing not connected yet");
              }
              c.publish(subject, bytes);
            },
            System::nanoTime);
    self.set(s);
    s.ownsConnection = true;
    s.startTicking(tracker, subject);
    Nats.connectAsynchronously(
        natsOptions(
            url,
            (conn, event) -> {
              // A first connect that had to be retried is announced as a reconnect.
              if (event == ConnectionListener.Events.CONNECTED
                  || event == ConnectionListener.Events.RECONNECTED) {
                s.attach(conn, subject);
              }
            }),
        true);
    return s;
  }

  /** Subscribes on a connection that came up in the background; closes it if already closed. */
  private void attach(Connection nc, String subject) {
    synchronized (lock) {
      if (connection != null) {
        return;
      }
      connection = nc;
    }
    if (closed.get()) {
      closeQuietly(nc);
      return;
    }
    try {
      Dispatcher d = nc.createDispatcher(msg -> receive(msg.getData()));
      d.subscribe(subject);
      dispatcher = d;
      log.info("load sharing connected replica={} subject={}", replica(), subject);
    } catch (RuntimeException e) {
      log.warn("load sharing cannot subscribe subject={} error={}", subject, e.toString());
    }
    if (closed.get()) {
      closeQuietly(nc); // close() ran meanwhile and saw no connection yet
    }
  }

  private static void closeQuietly(Connection nc) {
    try {
      nc.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Connection options for load sharing: reconnect forever, and a full outgoing queue drops
   * messages instead of blocking the publishing (event-loop) thread — heartbeats repair the loss.
   */
  public static Options natsOptions(String url) {
    return natsOptions(url, (conn, event) -> {});
  }

  private static Options natsOptions(String url, ConnectionListener onEvent) {
    return new Options.Builder()
        .server(url)
        .connectionName("infera-router-load")
        .maxReconnects(-1)
        .reconnectWait(Duration.ofMillis(500))
        .discardMessagesWhenOutgoingQueueFull()
        .connectionListener(
            (conn, event) -> {
              // A disconnect also fires on close; a reconnect is the news worth telling.
              if (event == ConnectionListener.Events.RECONNECTED) {
                log.info("load sharing nats reconnected url={}", url);
              } else {
                log.debug("load sharing nats event={} url={}", event.getEvent(), url);
              }
              onEvent.connectionEvent(conn, event);
            })
        .errorListener(
            new ErrorListener() {
              @Override
              public void errorOccurred(Connection conn, String error) {
                log.warn("load sharing nats error={}", error);
              }

              @Override
              public void exceptionOccurred(Connection conn, Exception e) {
                // Reconnect attempts while the server is away: the events above say enough.
                log.debug("load sharing nats error={}", e.toString());
              }
            })
        .build();
  }

  /** True once subscribed on a connection that is up now. */
  public boolean connected() {
    Connection c = connection;
    return dispatcher != null && c != null && c.getStatus() == Connection.Status.CONNECTED;
  }

  /** This replica's id, in hex. */
  public String replica() {
    return Long.toHexString(replicaId);
  }

  public Settings settings() {
    return settings;
  }

  public Stats stats() {
    int n;
    synchronized (lock) {
      n = peers.size();
    }
    return new Stats(
        n,
        published.sum(),
        publishFailures.sum(),
        received.sum(),
        fromSelf.sum(),
        malformed.sum(),
        expired.sum());
  }

  @Override
  public WorkerLoad remote(WorkerId worker) {
    WorkerLoad l = sums.get(worker);
    return l == null ? WorkerLoad.IDLE : l;
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
    boolean newcomer = false;
    synchronized (lock) {
      if (closed.get()) {
        return;
      }
      if (m instanceof Bye) {
        if (drop(m.replica())) {
          log.info("load peer left replica={}", Long.toHexString(m.replica()));
        }
        return;
      }
      Peer p = peers.get(m.replica());
      if (p == null) {
        if (peers.size() >= MAX_REPLICAS) {
          return;
        }
        p = new Peer();
        peers.put(m.replica(), p);
        newcomer = true;
        log.info("load peer joined replica={}", Long.toHexString(m.replica()));
      }
      p.heardAt = nanoClock.getAsLong();
      if (m instanceof Update u) {
        for (Entry e : u.entries()) {
          apply(p, e);
          if (e.pick() && settings.remotePicks()) {
            tracker.remotePick(e.worker(), e.charge());
          }
        }
      } else if (m instanceof Heartbeat h) {
        Set<WorkerId> listed = new HashSet<>();
        for (Entry e : h.entries()) {
          apply(p, e);
          listed.add(e.worker());
        }
        // A worker left out has no load as of h.seq — unless a newer change already said more.
        for (Iterator<Map.Entry<WorkerId, Slot>> it = p.workers.entrySet().iterator();
            it.hasNext(); ) {
          Map.Entry<WorkerId, Slot> w = it.next();
          if (!listed.contains(w.getKey()) && w.getValue().seq() <= h.seq()) {
            addToSum(w.getKey(), w.getValue(), -1);
            it.remove();
          }
        }
      }
    }
    if (newcomer) {
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
    }
    expire(now);
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

  /** Drops replicas not heard from within the expiry. */
  void expire(long now) {
    long limit = settings.expiry().toNanos();
    synchronized (lock) {
      for (Iterator<Map.Entry<Long, Peer>> it = peers.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<Long, Peer> e = it.next();
        if (now - e.getValue().heardAt > limit) {
          e.getValue().workers.forEach((w, slot) -> addToSum(w, slot, -1));
          it.remove();
          expired.increment();
          log.info(
              "load peer expired replica={} silent_ms={}",
              Long.toHexString(e.getKey()),
              TimeUnit.NANOSECONDS.toMillis(now - e.getValue().heardAt));
        }
      }
    }
  }

  /** Stops sharing: the tracker is local again, peers are told to forget this replica. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    tracker.unshare(this);
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
    send(new Bye(replicaId));
    synchronized (lock) {
      peers.clear();
      sums.clear();
    }
    Connection nc = connection;
    if (nc == null) {
      return;
    }
    try {
      if (dispatcher != null) {
        nc.closeDispatcher(dispatcher);
      }
      if (ownsConnection) {
        nc.flush(Duration.ofMillis(500)); // let the goodbye out
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      log.debug("load sharing close error={}", e.toString());
    }
    if (ownsConnection) {
      try {
        nc.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void apply(Peer p, Entry e) {
    Slot old = p.workers.get(e.worker());
    if (old != null && old.seq() > e.seq()) {
      return; // a newer change already arrived
    }
    if (old == null && p.workers.size() >= SharedLoadMessage.MAX_ENTRIES) {
      return;
    }
    Slot now = new Slot(e.seq(), e.activeBlocks(), e.inFlight());
    if (old != null) {
      addToSum(e.worker(), old, -1);
    }
    addToSum(e.worker(), now, +1);
    p.workers.put(e.worker(), now);
  }

  private boolean drop(long replica) {
    Peer p = peers.remove(replica);
    if (p == null) {
      return false;
    }
    p.workers.forEach((w, slot) -> addToSum(w, slot, -1));
    return true;
  }

  // Called with lock held: the only writer of sums.
  private void addToSum(WorkerId worker, Slot slot, int sign) {
    if (slot.activeBlocks() == 0 && slot.inFlight() == 0) {
      return;
    }
    WorkerLoad cur = sums.getOrDefault(worker, WorkerLoad.IDLE);
    long active = cur.activeBlocks() + sign * slot.activeBlocks();
    int inFlight = cur.inFlight() + sign * slot.inFlight();
    if (active == 0 && inFlight == 0) {
      sums.remove(worker);
    } else {
      sums.put(worker, new WorkerLoad(active, 0, inFlight));
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

  private static long newReplicaId() {
    return new SecureRandom().nextLong();
  }
}
