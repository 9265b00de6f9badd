package io.infera.router.discovery;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.infera.router.config.RouterConfig;
import io.infera.router.config.RouterConfig.Pool;
import io.infera.router.discovery.WorkerInfo.Readiness;
import io.infera.router.kv.WorkerId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Discovers engine workers from the EndpointSlices ({@code discovery.k8s.io/v1}) of each pool's
 * headless Service: one informer per pool, a full snapshot recomputed from the informer caches
 * after every event.
 *
 * <p>Ready endpoints are {@link Readiness#READY}; terminating ones are {@link Readiness#DRAINING};
 * not-ready, not-terminating ones (pods starting) are not listed. A worker's id is its pod name.
 */
public final class KubernetesDiscovery implements Discovery {

  /** The label the EndpointSlice controller puts on every slice of a Service. */
  static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";

  private static final Logger log = LoggerFactory.getLogger(KubernetesDiscovery.class);

  private final List<Pool> pools;
  private final KubernetesClient client;
  private final boolean ownsClient;
  private final String namespace;

  private final Object lock = new Object();
  // Guarded by lock.
  private final List<PoolInformer> informers = new ArrayList<>();
  private Listener listener;
  private List<WorkerInfo> last = List.of();
  private Map<String, List<WorkerInfo>> lastByPool = Map.of();
  private Set<WorkerId> lastConflicts = Set.of();
  private boolean closed;

  private volatile boolean synced;

  /** Uses {@code client} (which the caller keeps and closes). */
  public KubernetesDiscovery(RouterConfig.Discovery config, KubernetesClient client) {
    this(config, client, false);
  }

  private KubernetesDiscovery(
      RouterConfig.Discovery config, KubernetesClient client, boolean ownsClient) {
    this.pools = List.copyOf(config.pools());
    this.client = Objects.requireNonNull(client, "client");
    this.ownsClient = ownsClient;
    this.namespace = resolveNamespace(config.namespace(), client.getNamespace());
  }

  /** Builds a client from the environment (in-cluster service account or kubeconfig). */
  public static KubernetesDiscovery create(RouterConfig.Discovery config) {
    return new KubernetesDiscovery(config, new KubernetesClientBuilder().build(), true);
  }

  @Override
  public void start(Listener listener) {
    Objects.requireNonNull(listener, "listener");
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("discovery is closed");
      }
      if (this.listener != null) {
        throw new IllegalStateException("discovery already started");
      }
      this.listener = listener;
      log.info(
          "discovery backend=kubernetes namespace={} pools={}",
          namespace,
          pools.stream().map(p -> p.name() + "/" + p.service()).toList());
      for (Pool pool : pools) {
        SharedIndexInformer<EndpointSlice> informer =
            client
                .discovery()
                .v1()
                .endpointSlices()
                .inNamespace(namespace)
                .withLabel(SERVICE_NAME_LABEL, pool.service())
                .runnableInformer(0);
        PoolInformer pi = new PoolInformer(pool, informer);
        informers.add(pi);
        // Retry forever (with the informer's backoff): a router must survive an API server restart
        // or a late RBAC grant. The default handler gives up before the first sync.
        informer.exceptionHandler(
            (started, t) -> {
              if (isClosed()) {
                return false;
              }
              log.warn(
                  "discovery pool={} service={} informer failed started={} error={}, retrying",
                  pool.name(),
                  pool.service(),
                  started,
                  describe(t));
              return true;
            });
        informer.addEventHandler(new SliceHandler(pool));
      }
      for (PoolInformer pi : informers) {
        pi.informer
            .start()
            .whenComplete(
                (v, t) -> {
                  if (t != null) {
                    if (!isClosed()) {
                      log.warn(
                          "discovery pool={} informer stopped error={}",
                          pi.pool.name(),
                          describe(t));
                    }
                    return;
                  }
                  pi.started = true;
                  log.info(
                      "discovery pool={} service={} listed slices={}",
                      pi.pool.name(),
                      pi.pool.service(),
                      pi.informer.getStore().list().size());
                  refresh("sync");
                });
      }
    }
    // No pools: the (empty) first snapshot is complete right away.
    refresh("start");
  }

  @Override
  public boolean synced() {
    return synced;
  }

  @Override
  public String name() {
    return "kubernetes";
  }

  @Override
  public void close() {
    List<PoolInformer> toStop;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      toStop = List.copyOf(informers);
    }
    // Outside the lock: handlers blocked on it must be able to finish.
    for (PoolInformer pi : toStop) {
      pi.informer.stop();
    }
    if (ownsClient) {
      client.close();
    }
    log.info("discovery backend=kubernetes closed");
  }

  private boolean isClosed() {
    synchronized (lock) {
      return closed;
    }
  }

  /** Recomputes the snapshot from the informer caches and delivers it if it changed. */
  private void refresh(String reason) {
    synchronized (lock) {
      if (closed || listener == null) {
        return;
      }
      for (PoolInformer pi : informers) {
        if (!pi.started) {
          return; // the first snapshot must cover every pool
        }
      }
      Map<String, List<WorkerInfo>> byPool = new LinkedHashMap<>();
      Map<WorkerId, WorkerInfo> byId = new LinkedHashMap<>();
      Set<WorkerId> conflicts = new TreeSet<>();
      for (PoolInformer pi : informers) {
        List<WorkerInfo> poolWorkers = workersOf(pi.pool, pi.informer.getStore().list());
        byPool.put(pi.pool.name(), poolWorkers);
        for (WorkerInfo w : poolWorkers) {
          if (byId.putIfAbsent(w.id(), w) != null) {
            conflicts.add(w.id());
          }
        }
      }
      if (!conflicts.equals(lastConflicts) && !conflicts.isEmpty()) {
        log.warn("discovery pods in several pools kept in the first pool ids={}", conflicts);
      }
      lastConflicts = conflicts;
      List<WorkerInfo> next = List.copyOf(byId.values());
      if (synced && next.equals(last)) {
        return;
      }
      byPool.forEach(
          (pool, workers) -> {
            if (!synced || !workers.equals(lastByPool.get(pool))) {
              log.info(
                  "discovery pool={} workers={} ready={} draining={} reason={}",
                  pool,
                  workers.size(),
                  count(workers, Readiness.READY),
                  count(workers, Readiness.DRAINING),
                  reason);
            }
          });
      last = next;
      lastByPool = byPool;
      try {
        listener.onWorkers(next);
      } catch (RuntimeException e) {
        log.warn("discovery listener failed workers={}", next.size(), e);
      }
      if (!synced) {
        synced = true;
        log.info("discovery synced pools={} workers={}", informers.size(), next.size());
      }
    }
  }

  /** A one-line cause for logs (fabric8 logs the stack trace itself). */
  private static String describe(Throwable t) {
    Throwable c = t;
    while (c instanceof CompletionException && c.getCause() != null) {
      c = c.getCause();
    }
    if (c instanceof KubernetesClientException k && k.getCode() > 0) {
      Status s = k.getStatus();
      String reason = s == null || s.getReason() == null ? "" : " " + s.getReason();
      return "HTTP " + k.getCode() + reason;
    }
    return c.toString();
  }

  private static long count(List<WorkerInfo> workers, Readiness r) {
    return workers.stream().filter(w -> w.readiness() == r).count();
  }

  /**
   * The workers of one pool, sorted by id: one per pod (READY wins when a pod appears in several
   * slices), endpoints without addresses and starting pods left out.
   */
  static List<WorkerInfo> workersOf(Pool pool, Collection<EndpointSlice> slices) {
    List<EndpointSlice> sorted = new ArrayList<>(slices);
    sorted.sort(Comparator.comparing(KubernetesDiscovery::sliceName));
    Map<String, WorkerInfo> byId = new TreeMap<>();
    for (EndpointSlice slice : sorted) {
      if (slice.getEndpoints() == null) {
        continue;
      }
      for (Endpoint ep : slice.getEndpoints()) {
        WorkerInfo w = workerOf(pool, ep);
        if (w != null) {
          byId.merge(
              w.id().value(),
              w,
              (a, b) ->
                  a.readiness() != Readiness.READY && b.readiness() == Readiness.READY ? b : a);
        }
      }
    }
    return List.copyOf(byId.values());
  }

  /** One endpoint as a worker, or null when it has no address or is not ready (starting). */
  static WorkerInfo workerOf(Pool pool, Endpoint ep) {
    Readiness readiness = readiness(ep.getConditions());
    List<String> addresses = ep.getAddresses();
    if (readiness == null || addresses == null || addresses.isEmpty()) {
      return null;
    }
    String address = addresses.get(0);
    if (address == null || address.isBlank()) {
      return null;
    }
    ObjectReference ref = ep.getTargetRef();
    String id =
        ref != null && ref.getName() != null && !ref.getName().isBlank() ? ref.getName() : address;
    String host = hostForUrl(address);
    return new WorkerInfo(
        WorkerId.of(id),
        "http://" + host + ":" + pool.port(),
        pool.role(),
        pool.engine(),
        pool.dpSize(),
        tcp(host, pool.zmqPort()),
        tcp(host, pool.zmqReplayPort()),
        readiness,
        pool.name());
  }

  /**
   * Kubernetes semantics: a null {@code ready} means ready; a terminating endpoint drains (also
   * when {@code ready} is forced true, as with {@code publishNotReadyAddresses}); a not-ready,
   * not-terminating endpoint is a pod starting up (null: not listed).
   */
  static Readiness readiness(EndpointConditions c) {
    if (c == null) {
      return Readiness.READY;
    }
    if (Boolean.TRUE.equals(c.getTerminating())) {
      return Readiness.DRAINING;
    }
    return Boolean.FALSE.equals(c.getReady()) ? null : Readiness.READY;
  }

  /** Brackets an IPv6 literal so that it can take a port. */
  static String hostForUrl(String address) {
    return address.indexOf(':') >= 0 && !address.startsWith("[") ? "[" + address + "]" : address;
  }

  private static String tcp(String host, int port) {
    return port > 0 ? "tcp://" + host + ":" + port : null;
  }

  private static String sliceName(EndpointSlice s) {
    return s.getMetadata() == null || s.getMetadata().getName() == null
        ? ""
        : s.getMetadata().getName();
  }

  private static String resolveNamespace(String configured, String clients) {
    if (configured != null && !configured.isBlank()) {
      return configured;
    }
    return clients != null && !clients.isBlank() ? clients : "default";
  }

  private static final class PoolInformer {
    final Pool pool;
    final SharedIndexInformer<EndpointSlice> informer;
    volatile boolean started;

    PoolInformer(Pool pool, SharedIndexInformer<EndpointSlice> informer) {
      this.pool = pool;
      this.informer = informer;
    }
  }

  /** Every event recomputes the whole snapshot: slices are few and the cache is authoritative. */
  private final class SliceHandler implements ResourceEventHandler<EndpointSlice> {
    private final Pool pool;

    SliceHandler(Pool pool) {
      this.pool = pool;
    }

    @Override
    public void onAdd(EndpointSlice slice) {
      log.debug("discovery pool={} event=add slice={}", pool.name(), sliceName(slice));
      refresh("add");
    }

    @Override
    public void onUpdate(EndpointSlice oldSlice, EndpointSlice newSlice) {
      log.debug("discovery pool={} event=update slice={}", pool.name(), sliceName(newSlice));
      refresh("update");
    }

    @Override
    public void onDelete(EndpointSlice slice, boolean deletedFinalStateUnknown) {
      log.debug("discovery pool={} event=delete slice={}", pool.name(), sliceName(slice));
      refresh("delete");
    }
  }
}
