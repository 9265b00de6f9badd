package io.infera.operator.desired;

/**
 * Values the operator chooses where the spec is silent (sizes, ports, probe timings), each with the
 * reason it is what it is.
 */
public final class Defaults {

  /** Engine HTTP port (OpenAI API, /health, /tokenize); the RouterConfig's pool port. */
  public static final int ENGINE_PORT = 8000;

  /**
   * Engine KV-event ZMQ PUB base port; only the relay on localhost uses it. vLLM and SGLang bind
   * data-parallel rank r at base + r (their publishers' {@code offset_endpoint_port}), so rank r of
   * a pool with {@code dataParallelSize} n uses 5557 .. 5557 + n - 1.
   */
  public static final int ZMQ_PORT = 5557;

  /**
   * Replay ROUTER base port, again + rank. It sits 100 above the PUB base, more than {@link
   * io.infera.operator.api.v1alpha1.Rules#MAX_DATA_PARALLEL_SIZE}, so no PUB rank meets a replay
   * rank; both ranges also miss vLLM's NIXL side channel (5600 + rank) and its P2P port (5710).
   */
  public static final int REPLAY_PORT = ZMQ_PORT + 100;

  /** ZMQ topic of KV events (docs/contracts.md, "KV-event wire formats"). */
  public static final String KV_EVENTS_TOPIC = "kv-events";

  /** Router HTTP port: the API, /health, /ready and /metrics. */
  public static final int ROUTER_PORT = 8000;

  /**
   * The router's admin port (RouterConfig {@code admin.port}): {@code /v1/admin/*}, {@code
   * /v1/workers}, {@code /metrics}; only the operator and a configured scraper may reach it.
   */
  public static final int ROUTER_ADMIN_PORT = 8081;

  public static final int NATS_CLIENT_PORT = 4222;
  public static final int NATS_MONITOR_PORT = 8222;

  /** RouterConfig {@code limits}. */
  public static final long ROUTER_MAX_BODY_BYTES = 64L << 20;

  public static final int ROUTER_RETRIES = 1;

  public static final String ROUTER_CPU = "500m";
  public static final String ROUTER_MEMORY = "1Gi";
  public static final String RELAY_CPU = "50m";

  /** The relay's {@code /health} and {@code /metrics} ({@code infera-router relay --http-port}). */
  public static final int RELAY_HTTP_PORT = 9400;

  public static final String RELAY_MEMORY = "192Mi";
  public static final String NATS_CPU = "100m";
  public static final String NATS_MEMORY = "512Mi";
  public static final String NATS_STORAGE = "10Gi";

  /**
   * The JVM heap's share of the container memory limit; the rest is metaspace, threads, direct
   * buffers and the tokenizer's native memory. The one setting of it: the images carry no heap flag
   * on their command line (a command-line flag would override this variable), only the same value
   * as a default JAVA_TOOL_OPTIONS for running them standalone, which a pod's env replaces.
   */
  public static final double HEAP_FRACTION = 0.70;

  /**
   * glibc malloc arenas of the router: its default (8 per core) keeps native memory the JVM and the
   * tokenizer have freed, and the router's RSS then passed a 1 Gi limit under hostile load although
   * its heap is bounded (HostileClientsIT: 1,113 MiB peak with the default, 897 MiB with 2).
   */
  public static final String MALLOC_ARENA_MAX = "2";

  /** Room for JVM metaspace, threads and buffers under the container memory limit. */
  public static final String JAVA_TOOL_OPTIONS = "-XX:MaxRAMPercentage=70.0";

  /**
   * Heap bytes one block of the router's index cap ({@code index.maxBlocks}) takes at worst, in a
   * fleet of at most 64 worker ranks: the router's {@code PrefixIndex.BYTES_PER_BLOCK}
   * (docs/operations.md, "Sizing the index"). The operator's copy: change both together.
   */
  public static final long ROUTER_INDEX_BYTES_PER_BLOCK = 144L;

  /** Extra bytes per block of the cap for every 64 worker ranks beyond the first 64. */
  public static final long ROUTER_INDEX_BYTES_PER_BLOCK_PER_64_RANKS = 40L;

  /** Heap a router needs besides its index: the router's {@code PrefixIndex.HEAP_RESERVE_BYTES}. */
  public static final long ROUTER_HEAP_RESERVE_BYTES = 448L << 20;

  /**
   * The router's default memory with {@code spec.router.index.maxBlocks} over {@code ranks} worker
   * ranks (the pools' replicas × data-parallel size): (reserve + the cap's worst-case index bytes)
   * / the heap fraction, rounded up to a MiB, and never below {@link #ROUTER_MEMORY}; {@link
   * #ROUTER_MEMORY} without a cap (the router's default cap fits it).
   */
  public static io.fabric8.kubernetes.api.model.Quantity routerMemory(
      Long indexMaxBlocks, int ranks) {
    if (indexMaxBlocks == null) {
      return new io.fabric8.kubernetes.api.model.Quantity(ROUTER_MEMORY);
    }
    long mib = 1L << 20;
    long widen = Math.max(0, (ranks - 1) / 64);
    long perBlock =
        ROUTER_INDEX_BYTES_PER_BLOCK + widen * ROUTER_INDEX_BYTES_PER_BLOCK_PER_64_RANKS;
    double heap = ROUTER_HEAP_RESERVE_BYTES + (double) indexMaxBlocks * perBlock;
    long total = (long) Math.ceil(heap / HEAP_FRACTION / mib);
    return new io.fabric8.kubernetes.api.model.Quantity(Math.max(1024L, total) + "Mi");
  }

  /** Non-root uid/gid of Infera's images and NATS. */
  public static final long NON_ROOT_UID = 65532L;

  /**
   * A terminating worker waits this long before the engine gets SIGTERM: the EndpointSlice marks it
   * terminating, every router drains it (no new requests), in-flight requests finish.
   */
  public static final int PRE_STOP_SLEEP_SECONDS = 15;

  /** After the pre-stop delay: time for in-flight generations to finish (long outputs). */
  public static final long GPU_TERMINATION_GRACE_SECONDS = 120L;

  public static final long SIM_TERMINATION_GRACE_SECONDS = 45L;
  public static final long ROUTER_TERMINATION_GRACE_SECONDS = 45L;

  /** Startup probe budget: model download + weight loading + CUDA graph capture (30 min). */
  public static final int ENGINE_STARTUP_PERIOD_SECONDS = 10;

  public static final int ENGINE_STARTUP_FAILURES = 180;

  /** The simulator starts in seconds. */
  public static final int SIM_STARTUP_PERIOD_SECONDS = 2;

  public static final int SIM_STARTUP_FAILURES = 30;

  private Defaults() {}
}
